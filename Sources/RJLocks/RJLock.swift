import CRJShims

#if !RJ_NO_SYNCHRONIZATION
import Synchronization
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock, used by RJIterator, RJPromises and RJNodes alike: stored in the
/// object it guards (inline on Linux; one allocation of its own with the portable lock, see
/// below), waiters sleep in the kernel instead of spinning, and ThreadSanitizer understands it.
///
/// On Linux it is a futex word, inline (`RJLockWord`, RJMutex.swift: one compare-exchange to
/// take it, one exchange to let it go); on Apple platforms, which the package supports from
/// macOS 13 / iOS 16 while `Synchronization` needs macOS 15 / iOS 18, and in a Linux build with
/// `-Xswiftc -DRJ_NO_SYNCHRONIZATION` (CI runs the suite that way), a `pthread_mutex_t` of its
/// own (one allocation, since a stored property has no address Swift guarantees). Plus:
/// - **ThreadSanitizer annotations.** TSan does not see a futex word, so it would report
///   every field the lock guards as racing. Each acquisition is followed by
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
    #if !RJ_NO_SYNCHRONIZATION
    @usableFromInline let word = RJLockWord()
    #else
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    /// Recursive locks only: the thread holding the lock (0: none). Written by the holder
    /// alone, so a thread that reads its own id there holds the lock.
    @usableFromInline let owner = RJAtomic<UInt>(0)
    @usableFromInline let recursive: Bool

    /// Makes a lock; a `recursive` one may be taken again by the thread holding it.
    @inlinable
    public init(recursive: Bool = false) {
        self.recursive = recursive
        #if RJ_NO_SYNCHRONIZATION
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        if status != 0 { fatalError("RJLocks: pthread_mutex_init failed (\(status))") }
        #endif
    }

    #if RJ_NO_SYNCHRONIZATION
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    #endif

    /// Whether this build uses the portable lock and atomics (a `pthread_mutex_t` and C11
    /// atomics, each on an allocation of its own: Apple platforms, or
    /// `-Xswiftc -DRJ_NO_SYNCHRONIZATION`) rather than `Synchronization`'s inline ones.
    ///
    /// ```swift
    /// print(RJLock.isPortable)   // false on Linux, by default
    /// ```
    public static var isPortable: Bool {
        #if !RJ_NO_SYNCHRONIZATION
        return false
        #else
        return true
        #endif
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
        #if !RJ_NO_SYNCHRONIZATION
        try withUnsafePointer(to: word) { address in
            word.lock()
            rj_tsan_acquire(address)
            defer {
                rj_tsan_release(address)
                word.unlock()
            }
            return try body()
        }
        #else
        // ThreadSanitizer understands pthread mutexes itself.
        let locked = pthread_mutex_lock(mutex)
        if locked != 0 { fatalError("RJLocks: pthread_mutex_lock failed (\(locked))") }
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            if unlocked != 0 { fatalError("RJLocks: pthread_mutex_unlock failed (\(unlocked))") }
        }
        return try body()
        #endif
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
