import CRJContext

/// Thrown from `yield` into a body that is being closed: by ``Generator/return(_:)``,
/// ``Generator/close()``, the release of its last reference, or the close of a generator that
/// delegates to it. Python's `GeneratorExit`.
///
/// Catch it by type to finish work when closed, and let it go on (rethrow it): the close
/// completes once it has gone through every cleanup. A body that swallows it and yields again
/// stays suspended after `return`, and is reported and dropped on release (Python's "generator
/// ignored GeneratorExit"). Only the library makes one, so `catch is GeneratorExit` takes only a
/// close, never an error thrown in with ``Generator/throw(_:)`` (unless that is a
/// `GeneratorExit` a body let out, which closes the generator, as in Python).
///
/// ```swift
/// let lexer = Generator<String, Character, Void> { y in
///     var token = ""
///     do {
///         while true {
///             let c = try y.yield(token)
///             token = c == " " ? "" : token + String(c)
///         }
///     } catch let exit as GeneratorExit {
///         if !token.isEmpty { print("last token: \(token)") }   // flush, then go on closing
///         throw exit
///     }
/// }
/// ```
///
/// It carries the value `return(_:)` asked for, as ES6's return completion does: a cleanup
/// that yields, is resumed and then lets the signal go on still completes with that value, and
/// a second `return(w)` during the cleanup throws a new signal carrying `w`. Only the library
/// makes one.
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

    /// The signal a delegating generator goes on with once its inner generator, driven with
    /// this signal, returned `value` (ES6 `yield*`: the outer returns with the inner's value
    /// when the inner was given the return; a close stays a close).
    @inlinable
    func continued<R>(afterInnerReturned value: R) -> GeneratorExit {
        guard let pendingReturn, pendingReturn.type == R.self else { return self }
        return GeneratorExit(pendingReturn: PendingReturn(value, type: R.self))
    }
}

extension GeneratorExit {
    /// The signal of a plain close (a release, `close()`, a delegation's close: no `return`
    /// value), boxed once for the process and thrown as it is: a close allocates no error box,
    /// and `runBody` knows it by identity, without a dynamic cast (the two were most of what a
    /// suspended generator's release cost beyond its allocations). Kept in a cell whose address
    /// the C core holds (`rj_swift_close_signal`): one load a read.
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

    /// Whether `error` is the boxed plain close itself. An `any Error` is one reference to its
    /// box, so the comparison is of two words. (`as any Error`: passed to a generic parameter
    /// unmarked, the existential would be opened, and the bytes would be its value's.) No cell
    /// yet means no plain close was ever thrown: asking makes none.
    @inlinable
    static func isBoxedClose(_ error: any Error) -> Bool {
        guard let cell = rj_close_signal_cell() else { return false }
        return withUnsafeBytes(of: error as any Error) { $0.load(as: UInt.self) } == UnsafeRawPointer(cell).load(as: UInt.self)
    }
}

/// A value `return(_:)` asked for, without its static type, and that type; boxed so that the
/// generator pays one pointer for it and allocates only when `return` is called.
///
/// `@unchecked Sendable` because `Error` requires it of `GeneratorExit`: the signal never
/// leaves its generator but through a body that stores it on purpose, and the generator's state
/// word orders every access while it is inside, so the value is never touched by two threads
/// at once.
@usableFromInline
final class PendingReturn: @unchecked Sendable {
    @usableFromInline let value: Any
    @usableFromInline let type: Any.Type

    @usableFromInline init(_ value: Any, type: Any.Type) {
        self.value = value
        self.type = type
    }
}
