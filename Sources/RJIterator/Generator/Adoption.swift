import CRJContext
import CRJShims

// Adoption: `yieldAll` of a fresh generator runs its body right there, on the delegating body's
// stack, as a nested call (docs/generators.md, "Delegation: a generator per call at a call's price").
//
// - The *runner* is the generator whose coroutine runs the bodies (the bottom one): a yield hands
//   out through its resumer's slots (`Yielder.host(on:)`), a resume takes its state word, its
//   release closes them all. An *adopted* generator is `running` from its adoption to its end,
//   then `completed`, as any delegate; the coroutine says its body is the one running
//   (`rj_coro_adopt`: owner and a new id) for the checks and messages that look, and the adopter
//   puts its own back at the end. Each level keeps an `Adoption` in the adopter's frame.
// - A close reaches the innermost `yield` and is routed through the levels by Delegation.swift's
//   rules (`routeExit`): a `return(v)`'s value goes down a level only where the `Return` types
//   agree, and each level keeps the exit it passed on; any yield spends the exits below it (ES6),
//   so the resumer clears the runner's mark once the coroutine suspends after a close.
// - Not adopted: a generator started, held elsewhere too, built on by a layer above, or whose
//   promised stack is not left below the delegating body (every stack reserves address space
//   below its nominal size for this), or while a for-in's error waits on the runner.

/// One level of adoption, kept in the adopting body's frame while the adopted body runs.
@usableFromInline
struct Adoption {
    /// The generator whose coroutine runs both bodies.
    @usableFromInline let runner: Unmanaged<_RJCoroutineHost>
    /// The generator whose body adopted (`yieldAll`'s caller), and its id (`rj_coro_id`), which
    /// the coroutine says again once the adopted body ends.
    @usableFromInline let adopter: Unmanaged<_RJCoroutineHost>
    @usableFromInline let adopterId: UInt64
    /// The adopter's own level, when it runs adopted too.
    @usableFromInline let outer: UnsafeMutablePointer<Adoption>?
    /// The adopted generator's `Return` type: a `return(v)` routed through this level goes on to
    /// the adopted body only if its value is of that type.
    @usableFromInline let innerReturn: Any.Type
    /// The exit a close routed through this level left for the adopter: valid while `exitMark`
    /// is the runner's `routedExitMark`; `exitValue` its `return` value, retained (nil: a plain
    /// close). Raw, so that a level no close went through has nothing to destroy.
    @usableFromInline var exitMark: UInt64 = 0
    @usableFromInline var exitValue: Unmanaged<PendingReturn>? = nil

    @inlinable
    init(runner: Unmanaged<_RJCoroutineHost>, adopter: Unmanaged<_RJCoroutineHost>, adopterId: UInt64,
         outer: UnsafeMutablePointer<Adoption>?, innerReturn: Any.Type) {
        self.runner = runner
        self.adopter = adopter
        self.adopterId = adopterId
        self.outer = outer
        self.innerReturn = innerReturn
    }
}

extension _RJCoroutineHost {
    /// This generator, not started, adopted by the body running on `current`: the adopted body's
    /// id, the coroutine now saying it runs; `nil` when it cannot be adopted there (see the top of
    /// this file). Called holding `running`, taken from `created`.
    @inlinable @inline(__always)
    final func adoptionId(on current: OpaquePointer, host: Unmanaged<_RJCoroutineHost>) -> UInt64? {
        guard client == nil, releasePolicy == .close, rj_is_uniquely_referenced(object),
              !host._withUnsafeGuaranteedRef({ $0.machine.hasPendingError }) else { return nil }
        return enterAdopted(on: current)
    }

    /// The value a close brings to this adopted body: `nil` for a plain close. The close came to
    /// the runner (its pending `return(v)`, if any); each level passes the value on only where
    /// the adopted body's `Return` type is the value's, and keeps the exit it passed on (`exit`,
    /// marked with a new `routedExitMark` of the runner's). Out of line: the cold path of a close.
    @usableFromInline @inline(never)
    final func routeExit() -> PendingReturn? {
        let top = adoption.unsafelyUnwrapped
        var bottom = top
        while let outer = bottom.pointee.outer { bottom = outer }
        let runner = bottom.pointee.runner
        let pending = runner._withUnsafeGuaranteedRef { $0.machine.takeExitValue() }
        let mark = rj_unique_id()
        runner._withUnsafeGuaranteedRef { $0.routedExitMark = mark }
        // Levels counted from the top (0). The value reaches a level's adopter when no level
        // below it refused it: when the lowest refusing level is above (a smaller count) or none.
        var lowestRefusal = -1
        if let pending {
            var level = top
            var count = 0
            while true {
                if level.pointee.innerReturn != pending.type { lowestRefusal = count }
                guard let outer = level.pointee.outer else { break }
                level = outer
                count += 1
            }
        }
        var level = top
        var count = 0
        while true {
            level.pointee.exitValue?.release()
            level.pointee.exitValue = count >= lowestRefusal ? pending.map { Unmanaged.passRetained($0) } : nil
            level.pointee.exitMark = mark
            guard let outer = level.pointee.outer else { break }
            level = outer
            count += 1
        }
        return lowestRefusal < 0 ? pending : nil
    }
}

extension _RJCoroutineHost {
    /// The coroutine has suspended after a close went through bodies adopted on it: the exits it
    /// left in their levels are spent (`switchIntoBody`).
    @inlinable @inline(__always)
    final func spendRoutedExits() {
        if routedExitMark != 0 { routedExitMark = 0 }
    }
}

extension Generator {
    /// The end of an adopted body whose level a close went through (`routeExit`): completes
    /// this generator with `ended`, and goes on as a delegating body does (Delegation.swift): with
    /// the exit it was given, if it is still valid (no yield spent it), the inner's value
    /// continuing it; otherwise as after any delegate's end. Out of line: the cold path.
    @usableFromInline @inline(never)
    func endAdoptionClosing(_ ended: Completion<Return>, level: Adoption) throws -> Return {
        let value = level.exitValue?.takeRetainedValue()
        let exit = level.exitMark == level.runner._withUnsafeGuaranteedRef({ $0.routedExitMark })
            ? GeneratorExit(pendingReturn: value) : nil
        machine.completed(with: ErasedCompletion(ended), kind: ended.kind)
        switch ended {
        case .returned(let result):
            if let exit { throw exit.continued(afterInnerReturned: result) }
            return result
        case .threw(let error):
            throw error
        case .closed:
            throw exit ?? GeneratorError.closed
        }
    }
}

extension Yielder {
    /// `yieldAll(inner)` for an `inner` the body of `adopter` adopted (`adoptionId`, which gave
    /// `innerId`): runs its body here, on `current`, and goes on as a delegation does when its
    /// inner ends.
    @inlinable @inline(__always)
    func adopt<R>(_ inner: Generator<Element, Input, R>, on current: OpaquePointer, host: Unmanaged<_RJCoroutineHost>, id innerId: UInt64,
                  by adopter: Unmanaged<_RJCoroutineHost>) throws -> R {
        var level = Adoption(runner: host, adopter: adopter, adopterId: id,
                             outer: adopter._withUnsafeGuaranteedRef { $0.adoption }, innerReturn: R.self)
        inner.machine.adopted()
        // Unprotected: a pointer to a struct of words, no array a write could run off.
        let ended = _withUnprotectedUnsafeMutablePointer(to: &level) { level in
            inner.adoption = level
            return inner.runToEnd(Yielder(id: innerId, site: inner.record.site), on: current)
        }
        inner.adoption = nil
        adopter._withUnsafeGuaranteedRef { $0.resumeAfterAdopted(on: current, id: id) }
        if level.exitMark != 0 { return try inner.endAdoptionClosing(ended, level: level) }
        switch ended {
        case .returned(let value):
            inner.machine.completed(with: ErasedCompletion(Completion<R>.returned(value)), kind: ended.kind)
            return value
        case .threw(let error):
            inner.machine.completed(with: .threw(error), kind: .threw)
            throw error
        case .closed:
            inner.machine.completed(with: .closed, kind: .closed)
            throw GeneratorError.closed
        }
    }
}
