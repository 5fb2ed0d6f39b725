// `switchIntoBody` for the seed API, which makes its `RJResult` out of the yielded value where
// the body wrote it (a `GeneratorStep` of an `Any?` would move five words twice more).

extension Generator {
    /// Resumes the suspended body with `signal`, holding `running`: `yielded` gets the slot of
    /// the yielded value and must move it out; for a body that ended, `ended` gets a call that
    /// completes the generator and gives the step (or throws), to call once. No delegation.
    @inlinable @inline(__always)
    func resume<Result>(
        inPlace signal: consuming ResumeSignal<Input>,
        yielded: (UnsafeMutablePointer<Element>) -> Result,
        ended: (_ complete: () throws -> GeneratorStep<Element, Return>) -> Result
    ) -> Result {
        assert(delegate == nil, "RJIterator: internal error: an in-place resume of a body that delegates")
        let coro = coro.unsafelyUnwrapped
        var incoming = Optional(consume signal)
        return _withUnprotectedUnsafeTemporaryAllocation(of: ResumeSignal<Input>.self, capacity: 1) { signalSlot in
            _withUnprotectedUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { valueSlot in
                _withUnprotectedUnsafeTemporaryAllocation(of: Completion<Return>.self, capacity: 1) { resultSlot in
                    let signalAt = signalSlot.baseAddress.unsafelyUnwrapped
                    let valueAt = valueSlot.baseAddress.unsafelyUnwrapped
                    let resultAt = resultSlot.baseAddress.unsafelyUnwrapped
                    signalAt.initialize(to: incoming.take().unsafelyUnwrapped)
                    let finished = switchIn(coro, inbox: UnsafeMutableRawPointer(signalAt), outbox: UnsafeMutableRawPointer(valueAt),
                                            completionBox: UnsafeMutableRawPointer(resultAt))
                    if !finished {
                        machine.bodyYielded()
                        return yielded(valueAt)
                    }
                    return ended { try complete(resultAt.move()) }
                }
            }
        }
    }
}
