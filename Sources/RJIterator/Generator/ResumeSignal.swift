/// How a suspended body is resumed; read by `yield` right after the switch back in.
@usableFromInline
enum ResumeSignal<Input> {
    case value(Input)
    case error(any Error)
    /// Throw the exit signal (`_RJCoroutineHost.takeExit()` makes it).
    case close
    /// Only for a body suspended in `yieldAll` (Generator+Delegation.swift): the generator it
    /// delegates to was driven directly by the resumer and has completed.
    case delegateDone
}
