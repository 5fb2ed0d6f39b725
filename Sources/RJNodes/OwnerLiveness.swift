#if os(Linux)
import CRJShims
#endif

/// A reference that does not keep its object alive and that can be asked, cheaply, whether the
/// object still lives: for a listener's owner (checked before every block call) and for the
/// derived nodes a node feeds (checked before every delivery).
///
/// A `weak` reference would do, but reading one retains and releases the object through its
/// side table, which cost nearly half of a delivery to ten listeners. On Linux, where every
/// object is a native Swift object, this holds an `unowned` reference, which keeps the object's
/// *memory* (not the object) until this goes, and asks the runtime whether the object has
/// started deinitialising: one load of its reference count. Elsewhere (an Objective-C object may
/// be an owner) it falls back to `weak`.
///
/// `load()` returns a strong reference for the duration of a use. An object that starts
/// deinitialising right after the check is still safe to use for that call: a derived node's
/// deinit first detaches from its source, under the source's lock, which the delivering thread
/// holds.
@usableFromInline
struct UnownedCheck<Object: AnyObject>: @unchecked Sendable {
    #if os(Linux)
    @usableFromInline unowned(safe) let object: Object
    @usableFromInline let address: UnsafeMutableRawPointer

    @usableFromInline init(_ object: Object) {
        self.object = object
        address = Unmanaged.passUnretained(object).toOpaque()
    }

    @inlinable var isAlive: Bool { !rj_is_deallocating(address) }

    @inlinable func load() -> Object? {
        isAlive ? Unmanaged<Object>.fromOpaque(address).takeUnretainedValue() : nil
    }
    #else
    @usableFromInline weak var object: Object?

    @usableFromInline init(_ object: Object) {
        self.object = object
    }

    @inlinable var isAlive: Bool { object != nil }

    @inlinable func load() -> Object? { object }
    #endif
}

@usableFromInline typealias OwnerLiveness = UnownedCheck<AnyObject>
