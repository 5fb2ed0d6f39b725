// A resume for a face over a generator that makes its own result out of the yielded value (the
// seed API's `RJResult`, Seed/RJIterator.swift): `switchIntoBody` (Generator+Steps.swift) with the
// value handed over in the slot the body wrote it into, not moved into a `GeneratorStep` first
// (for an `Any?`, a five-word enum moved twice more through the resumer's frame). Self-contained:
// it uses the hand-off (`switchIn`) and the state machine as `switchIntoBody` does, and nothing
// else calls it.

extension Generator {
    /// Resumes the suspended body with `signal`, as `switchIntoBody` does, and hands what it left
    /// to the face: `yielded` gets the slot holding the value the body yielded, initialised, and
    /// must move it out; for a body that ended, `ended` gets a call that completes the generator
    /// as `switchIntoBody` does and gives the step (or throws the body's error), to call once.
    /// Called holding `running`, taken from `suspended`, on a generator whose body does not
    /// delegate (`yieldAll`; the seed's bodies cannot).
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
