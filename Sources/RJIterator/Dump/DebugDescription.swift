// `debugDescription` of each coroutine-backed type: one coroutine read as a dump reads it.

/// The text of one generator as `debugDescription` shows it.
func debugText(of host: _RJCoroutineHost) -> String {
    let c = RJRuntime.inspect(host)
    var text = "\(c)"
    for frame in c.frames { text += "\n    \(frame)" }
    return text
}

extension RJIterator: CustomDebugStringConvertible {
    /// The iterator's state, where it was made and, if suspended, where (as in a dump).
    ///
    /// ```swift
    /// _ = it.next(); print(it.debugDescription)   // "#3 RJIterator, suspended in yield, made at ..."
    /// ```
    public var debugDescription: String { debugText(of: core) }
}

extension RJAsyncTask: CustomDebugStringConvertible {
    /// The task's state, what its body waits on and where (as in a dump); `"rj_async task,
    /// finished"` once its body has ended.
    ///
    /// ```swift
    /// let task = rj_async(on: queue) { _ = rj_await(fetch()) }
    /// print(task.debugDescription)   // "#1025 rj_async task, suspended in rj_await of a callback for 2.0 s, ..."
    /// ```
    public var debugDescription: String {
        guard let core = currentCore else { return "rj_async task, finished" }
        return debugText(of: core)
    }
}

extension AsyncGenerator: CustomDebugStringConvertible {
    /// The async generator's state, what its body waits on and where (as in ``RJRuntime/dump(stuckAfter:)``).
    ///
    /// ```swift
    /// let g = AsyncGenerator<Int, Void, Void> { y in try y.yield(1) }
    /// print(g.debugDescription)   // "#- AsyncGenerator, created (not started), made at ..."
    /// ```
    public var debugDescription: String { debugText(of: storage.core) }
}

extension Generator: CustomDebugStringConvertible {
    /// The generator's state, where it was made and, if suspended, the functions of its body it is
    /// suspended in, innermost first (as in ``RJRuntime/dump(stuckAfter:)``).
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// _ = try g.next(); print(g.debugDescription)
    /// // #3 Generator, suspended in yield, made at Demo/main.swift:1, last ran on thread 4242, dedicated stack
    /// //     closure #1 (RJIterator.Yielder<Swift.Int, ()>) throws -> () in Demo ... + 97  (Demo)
    /// ```
    public var debugDescription: String { debugText(of: self) }
}
