#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock: a `pthread_mutex_t` in its own allocation (SwiftNIO's `NIOLock`
/// design), used by RJIterator, RJPromises and RJNodes alike.
///
/// Why this and not a spin lock or `Synchronization.Mutex`: sanitizers understand it (TSan
/// intercepts `pthread_mutex_lock`/`unlock`, so it sees the happens-before a lock gives; it
/// cannot see `Mutex`, whose futex word it does not instrument on Linux), a waiter sleeps
/// instead of spinning while a long holder runs (a node's listeners run under its lock), it
/// can be recursive where the semantics need it, and it needs no OS newer than the package's
/// minimums. Every `pthread_*` return code is checked: a failure stops the program with a
/// message naming the call, never a silent unlocked section.
///
/// Threads: every member may be called from any thread. `lock` and `unlock` must pair on one
/// thread (a pthread mutex belongs to the thread that locked it).
///
/// ```swift
/// let lock = RJLock()
/// var count = 0
/// lock.withLock { count += 1 }
/// ```
public final class RJLock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Makes a lock; a `recursive` one may be taken again by the thread holding it (each
    /// `lock` then needs its `unlock`).
    public init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        rjCheck(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        defer { rjCheck(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy") }
        // A recursive mutex counts its holder's locks. Debug builds check the others too
        // (unlocking a lock another thread holds is reported, not silently done), as
        // NIOLock does; optimised builds take the plain mutex's fast path.
        var kind = Int32(PTHREAD_MUTEX_NORMAL)
        if recursive {
            kind = Int32(PTHREAD_MUTEX_RECURSIVE)
        } else {
            assert({ kind = Int32(PTHREAD_MUTEX_ERRORCHECK); return true }())
        }
        rjCheck(pthread_mutexattr_settype(&attributes, kind), "pthread_mutexattr_settype")
        rjCheck(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
    }

    deinit {
        rjCheck(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deallocate()
    }

    /// Takes the lock, waiting (asleep) while another thread holds it.
    @inlinable @inline(__always)
    public func lock() {
        let rc = pthread_mutex_lock(mutex)
        if rc != 0 { rjLockFailed(rc, "pthread_mutex_lock") }
    }

    /// Gives the lock back; only the thread that holds it may.
    @inlinable @inline(__always)
    public func unlock() {
        let rc = pthread_mutex_unlock(mutex)
        if rc != 0 { rjLockFailed(rc, "pthread_mutex_unlock") }
    }

    /// Runs `body` holding the lock.
    ///
    /// ```swift
    /// let total = lock.withLock { values.reduce(0, +) }
    /// ```
    @inlinable @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value only reachable while holding its lock (SwiftNIO's `NIOLockedValueBox`): the state
/// and the lock that guards it cannot be used apart.
///
/// ```swift
/// let counter = RJLockedValue(0)
/// counter.withLockedValue { $0 += 1 }
/// ```
public final class RJLockedValue<Value>: @unchecked Sendable {
    @usableFromInline let lock = RJLock()
    @usableFromInline var value: Value

    /// Makes a box holding `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}

@inline(__always)
func rjCheck(_ rc: Int32, _ call: StaticString) {
    if rc != 0 { rjLockFailed(rc, call) }
}

/// Stops the program: a lock call failed, so the state it guards can no longer be trusted.
@usableFromInline @inline(never)
func rjLockFailed(_ rc: Int32, _ call: StaticString) -> Never {
    let reason = String(cString: strerror(rc))
    fatalError("RJLocks: \(call) failed with error \(rc) (\(reason)); a lock was used wrongly "
        + "(unlocked by a thread that does not hold it, or destroyed while held)")
}
