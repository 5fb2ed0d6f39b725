import CRJContext

/// Thrown from `yield` into a body being closed (``Generator/return(_:)``, ``Generator/close()``,
/// release): Python's `GeneratorExit`, carrying the value `return(_:)` asked for. Catch it by
/// type to finish work, then rethrow it (docs/generators.md, "Closing: `GeneratorExit`").
///
/// ```swift
/// let g = Generator<Int, Void, Void> { y in
///     do { while true { try y.yield(1) } } catch let exit as GeneratorExit {
///         print("flushing"); throw exit   // finish work, then let the close go on
///     }
/// }
/// ```
public struct GeneratorExit: Error, CustomStringConvertible {
    /// What `return(_:)` asked for; `nil` for a plain close (release, delegation).
    @usableFromInline let pendingReturn: PendingReturn?

    @usableFromInline init(pendingReturn: PendingReturn?) {
        self.pendingReturn = pendingReturn
    }

    public var description: String {
        "RJIterator: the generator is being closed (GeneratorExit); let this go on after the cleanup"
    }

    /// How a body that ended with this signal completes, for a generator returning `Return`.
    @inlinable
    func completion<Return>(as _: Return.Type) -> Completion<Return> {
        if let pendingReturn, pendingReturn.type == Return.self {
            return .returned(pendingReturn.value as! Return)
        }
        return .closed
    }

    /// The signal a delegating generator goes on with once its inner, driven with this signal,
    /// returned `value` (ES6 `yield*`: the outer returns the inner's value; a close stays a close).
    @inlinable
    func continued<R>(afterInnerReturned value: R) -> GeneratorExit {
        guard let pendingReturn, pendingReturn.type == R.self else { return self }
        return GeneratorExit(pendingReturn: PendingReturn(value, type: R.self))
    }
}

extension GeneratorExit {
    /// The signal of a plain close (release, `close()`, a delegation's close: no `return` value),
    /// boxed once for the process and thrown as it is: a close allocates no error box, and
    /// `runBody` knows it by identity, without a dynamic cast. Kept in a cell whose address the C
    /// core holds (`rj_swift_close_signal`): one load a read.
    @inlinable
    static var boxedCloseCell: UnsafeMutablePointer<any Error> {
        if let cell = rj_close_signal_cell() { return cell.assumingMemoryBound(to: (any Error).self) }
        return makeBoxedCloseCell()
    }

    @usableFromInline @inline(never)
    static func makeBoxedCloseCell() -> UnsafeMutablePointer<any Error> {
        let cell = UnsafeMutablePointer<any Error>.allocate(capacity: 1)
        cell.initialize(to: GeneratorExit(pendingReturn: nil))
        guard let there = rj_close_signal_publish(cell) else { return cell }
        // Another thread published its cell first.
        cell.deinitialize(count: 1)
        cell.deallocate()
        return there.assumingMemoryBound(to: (any Error).self)
    }

    /// Whether `error` is the boxed plain close itself: one reference to its box, so two words
    /// compared (`as any Error`: unmarked, a generic parameter would open the existential). No cell
    /// yet means no plain close was ever thrown: asking makes none.
    @inlinable
    static func isBoxedClose(_ error: any Error) -> Bool {
        guard let cell = rj_close_signal_cell() else { return false }
        return withUnsafeBytes(of: error as any Error) { $0.load(as: UInt.self) } == UnsafeRawPointer(cell).load(as: UInt.self)
    }
}

/// A value `return(_:)` asked for and its type, boxed: the generator pays one pointer for it and
/// allocates only when `return` is called. `@unchecked Sendable` because `Error` requires it of
/// `GeneratorExit`: the signal never leaves its generator but through a body that stores it on
/// purpose, and the state word orders every access inside it: never two threads at once.
@usableFromInline
final class PendingReturn: @unchecked Sendable {
    @usableFromInline let value: Any
    @usableFromInline let type: Any.Type

    @usableFromInline init(_ value: Any, type: Any.Type) {
        self.value = value
        self.type = type
    }
}
