"""LLDB commands for RJIterator: list a stopped process's coroutines and where each waits.

    (lldb) command script import Tools/lldb/rj_lldb.py
    (lldb) rj-dump            # every generator, rj_async task and async generator, grouped
    (lldb) rj-dump 5          # the same, marking awaits older than 5 s as stuck

The command calls rj_dump_text() in the process (RJRuntime.dump() as text, in memory the
process allocates), prints it and frees it. The expression runs on the selected thread; other
threads stay stopped, unless one of them holds the registry (it was making or releasing a
generator at that instant): then the call times out after 5 s and lldb lets the other threads
run until it ends (docs/debugging.md).
"""

import lldb


def rj_dump(debugger, command, result, internal_dict):
    target = debugger.GetSelectedTarget()
    process = target.GetProcess()
    if not process or not process.IsValid():
        result.SetError("rj-dump: no process")
        return
    frame = process.GetSelectedThread().GetSelectedFrame()
    stuck_after = command.strip() or "10"
    try:
        float(stuck_after)
    except ValueError:
        result.SetError("rj-dump: the argument is the stuck threshold in seconds, e.g. rj-dump 5")
        return
    options = lldb.SBExpressionOptions()
    options.SetLanguage(lldb.eLanguageTypeC)
    options.SetTimeoutInMicroSeconds(5 * 1000 * 1000)
    options.SetTryAllThreads(True)
    options.SetIgnoreBreakpoints(True)
    value = frame.EvaluateExpression("(char *)rj_dump_text(%s)" % stuck_after, options)
    if value.GetError().Fail():
        result.SetError("rj-dump: could not call rj_dump_text (is RJIterator linked into this program?): "
                        + str(value.GetError()))
        return
    address = value.GetValueAsUnsigned()
    error = lldb.SBError()
    text = process.ReadCStringFromMemory(address, 1 << 24, error) if address else ""
    frame.EvaluateExpression("(void)free((void *)%d)" % address, options)
    if error.Fail():
        result.SetError("rj-dump: could not read the dump: " + str(error))
        return
    result.PutCString(text)


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand("command script add -f rj_lldb.rj_dump rj-dump")
