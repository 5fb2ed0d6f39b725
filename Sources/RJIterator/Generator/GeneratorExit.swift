/// Thrown from `yield` into a body that is being closed (`return(_:)`, release, a delegating
/// generator's close). Private so that only a catch-all `catch` can swallow it.
///
/// It carries the value `return(_:)` asked for, as ES6's return completion does: a cleanup
/// that yields, is resumed and then lets the signal go on still completes with that value,
/// and a second `return(w)` during the cleanup throws a new signal carrying `w`.
@usableFromInline
struct GeneratorExit: Error {
    /// What `return(_:)` asked for; `nil` for a plain close (release, delegation).
    @usableFromInline let pendingReturn: PendingReturn?

    @usableFromInline init(pendingReturn: PendingReturn?) {
        self.pendingReturn = pendingReturn
    }

    /// How a body that ended with this signal completes, for a generator returning `Return`.
    @inlinable
    func completion<Return>(as _: Return.Type) -> Completion<Return> {
        if let pendingReturn, pendingReturn.type == Return.self {
            return .returned(pendingReturn.value as! Return)
        }
        return .closed
    }

    /// The signal a delegating generator goes on with once its inner generator, driven with
    /// this signal, returned `value` (ES6 `yield*`: the outer returns with the inner's value
    /// when the inner was given the return; a close stays a close).
    @inlinable
    func continued<R>(afterInnerReturned value: R) -> GeneratorExit {
        guard let pendingReturn, pendingReturn.type == R.self else { return self }
        return GeneratorExit(pendingReturn: PendingReturn(value, type: R.self))
    }
}

/// A value `return(_:)` asked for, without its static type, and that type; boxed so that the
/// generator pays one pointer for it and allocates only when `return` is called.
///
/// `@unchecked Sendable` because `Error` requires it of `GeneratorExit`: the signal never
/// leaves its generator (the body's end catches it), whose state word already orders every
/// access, so the value is never touched by two threads at once.
@usableFromInline
final class PendingReturn: @unchecked Sendable {
    @usableFromInline let value: Any
    @usableFromInline let type: Any.Type

    @usableFromInline init(_ value: Any, type: Any.Type) {
        self.value = value
        self.type = type
    }
}
