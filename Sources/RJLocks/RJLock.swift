import CRJShims
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock, used by RJIterator, RJPromises and RJNodes alike: stored inline in
/// the object it guards (no allocation), waiters sleep in the kernel instead of spinning, and
/// ThreadSanitizer understands it.
///
/// It is the toolchain's `Synchronization.Mutex` (a futex word on Linux, `os_unfair_lock` on
/// Apple platforms) plus what that one lacks here:
/// - **ThreadSanitizer annotations.** TSan does not see `Mutex`'s futex word on Linux, so it
///   reported every field a `Mutex` guards as racing. Each acquisition is followed by
///   `__tsan_acquire` and each release preceded by `__tsan_release` on the lock's address;
///   without TSan's runtime in the process these are a load and a predicted branch.
/// - **Recursion where the semantics need it.** `RJLock(recursive: true)` may be taken again
///   by the thread that holds it (a node's listener setting that node); the others are plain.
///
/// Threads: every member may be called from any thread. The lock is `~Copyable`: store it in
/// the object whose state it guards, as a `let`.
///
/// ```swift
/// final class Counter: @unchecked Sendable {
///     private let lock = RJLock()
///     private var count = 0
///     func increment() -> Int { lock.withLock { count += 1; return count } }
/// }
/// ```
public struct RJLock: ~Copyable, @unchecked Sendable {
    @usableFromInline let mutex = Mutex<Void>(())
    /// Recursive locks only: the thread holding the lock (0: none). Written by the holder
    /// alone, so a thread that reads its own id there holds the lock.
    @usableFromInline let owner = Atomic<UInt>(0)
    @usableFromInline let recursive: Bool

    /// Makes a lock; a `recursive` one may be taken again by the thread holding it.
    @inlinable
    public init(recursive: Bool = false) {
        self.recursive = recursive
    }

    /// Runs `body` holding the lock, waiting (asleep) while another thread holds it.
    ///
    /// ```swift
    /// let total = lock.withLock { values.reduce(0, +) }
    /// ```
    @inlinable @inline(__always)
    public borrowing func withLock<T>(_ body: () throws -> T) rethrows -> T {
        if recursive {
            let me = currentThreadID()
            if owner.load(ordering: .relaxed) == me { return try body() }
            return try locked {
                owner.store(me, ordering: .relaxed)
                defer { owner.store(0, ordering: .relaxed) }
                return try body()
            }
        }
        return try locked(body)
    }

    @inlinable @inline(__always)
    borrowing func locked<T>(_ body: () throws -> T) rethrows -> T {
        try withUnsafePointer(to: mutex) { address in
            try mutex.withLock { _ in
                rj_tsan_acquire(address)
                defer { rj_tsan_release(address) }
                return try body()
            }
        }
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

/// An id of the calling thread, never 0 (its `pthread_t`).
@inlinable @inline(__always)
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
