// The delegation loop (ES6 `yield*`, Python `yield from`), one for both yielders
// (docs/swift-core.md, "Delegation"). The rules it decides are the rows of docs/generators.md
// ("Return, throw and close, beside ES6 and Python"): inputs and errors are forwarded; a close
// of the body goes to the inner as its `return(v)` when the return types agree, else as a close.

/// Runs a delegation from the body of `host` to an inner generator until the inner returns.
///
/// - Parameters:
///   - runner: the generator whose coroutine runs the body (`host`, unless the body runs
///     adopted: Adoption.swift); a release closes the runner. `host` is the body's generator.
///   - first: the inner's first step (started, or resumed with a made-up Void input).
///   - handOut: hands a value of the inner out, suspending the body; returns how it was resumed.
///   - step: performs one forwarded operation on the inner; `nil` when it closed the inner.
///   - innerEndedMeanwhile: after each hand-out, how the inner ended if the resumer drove it to
///     its end (only `Yielder.yieldAll` of a generator: Generator+Delegation.swift); else `nil`.
@inlinable @inline(__always)
func delegateAll<Element, Input, R>(
    from host: Unmanaged<_RJCoroutineHost>, runner: Unmanaged<_RJCoroutineHost>, first: GeneratorStep<Element, R>,
    handOut: (Element) -> ResumeSignal<Input>,
    step: (GeneratorOperation<Input, R>) throws -> GeneratorStep<Element, R>?,
    innerEndedMeanwhile: () throws -> GeneratorStep<Element, R>?? = { nil }
) throws -> R {
    var current = first
    // The exit this body is being closed with, when `current` is the inner's answer to it.
    var exit: GeneratorExit? = nil
    while true {
        let value: Element
        switch current {
        case .returned(let result):
            // ES6: when the forwarded return completes the inner, this generator returns with
            // the inner's value (the types agreeing); otherwise `yield*` evaluates to it.
            if let exit { throw exit.continued(afterInnerReturned: result) }
            return result
        case .yielded(let yielded):
            value = yielded
        }
        if let exit, runner._withUnsafeGuaranteedRef({ $0.machine.closingOnRelease }) {
            // Released while the inner yields from its cleanup: the value has nowhere to go.
            // This body unwinds; the inner stays suspended and is closed on its own release.
            throw exit
        }
        // ES6: an inner that answered the return by yielding spent it.
        exit = nil
        let next: GeneratorStep<Element, R>?
        let resumed = handOut(value)
        if let ended = try innerEndedMeanwhile() {
            next = ended
        } else {
            switch resumed {
            case .value(let input):
                next = try step(.next(input))
            case .error(let error):
                next = try step(.throwing(error))
            case .close:
                let closing = host._withUnsafeGuaranteedRef { $0.takeExit() }
                exit = closing
                if let pending = closing.pendingReturn, pending.type == R.self {
                    next = try step(.returning(pending.value as! R))
                } else {
                    next = try step(.close)
                }
            }
        }
        guard let next else {
            // The inner completed by closing: a body being closed goes on closing; otherwise
            // someone else closed the inner, which has no value to give.
            if let exit { throw exit }
            throw GeneratorError.closed
        }
        current = next
    }
}
