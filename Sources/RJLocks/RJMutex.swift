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

/// A value that can only be reached holding its lock (`Synchronization.Mutex`'s shape, with
/// ``RJLock``'s ThreadSanitizer annotations): the state a lock guards and the lock itself are
/// one stored property, so no access can forget the lock, and none pays Swift's dynamic
/// exclusivity check (the value is reached through the lock's own storage).
///
/// On Linux it is a futex word (`RJLockWord`) and the value, both inline; with the portable
/// lock (Apple platforms, or `-Xswiftc -DRJ_NO_SYNCHRONIZATION`), a `pthread_mutex_t` and the
/// value on one allocation of their own.
///
/// Threads: every member may be called from any thread. `~Copyable`: store it as a `let` of
/// the object whose state it is.
///
/// ```swift
/// final class Counter: Sendable {
///     private let count = RJMutex(0)
///     func increment() -> Int { count.withLock { $0 += 1; return $0 } }
/// }
/// ```
public struct RJMutex<Value>: ~Copyable, @unchecked Sendable {
    #if !RJ_NO_SYNCHRONIZATION
    @usableFromInline let word = RJLockWord()
    /// The value, in place (`Mutex`'s own storage for it): reached only through `withLock`.
    @usableFromInline let cell: _Cell<Value>

    /// Makes a mutex holding `value`.
    @inlinable
    public init(_ value: consuming Value) {
        cell = _Cell(value)
    }
    #else
    @usableFromInline let storage: UnsafeMutablePointer<PortableMutexStorage<Value>>

    /// Makes a mutex holding `value`.
    @inlinable
    public init(_ value: consuming Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: PortableMutexStorage(value: value))
        let status = pthread_mutex_init(&storage.pointee.mutex, nil)
        if status != 0 { fatalError("RJLocks: pthread_mutex_init failed (\(status))") }
    }

    deinit {
        pthread_mutex_destroy(&storage.pointee.mutex)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }
    #endif

    /// Runs `body` with the value, holding the lock (waiting, asleep, while another thread
    /// holds it).
    ///
    /// ```swift
    /// let next = count.withLock { value -> Int in value += 1; return value }
    /// ```
    @inlinable @inline(__always)
    public borrowing func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        #if !RJ_NO_SYNCHRONIZATION
        // The value's address names the lock for ThreadSanitizer (one per mutex, and no
        // `withUnsafePointer` call in code that is not specialised).
        let address = cell._address
        word.lock()
        rj_tsan_acquire(address)
        defer {
            rj_tsan_release(address)
            word.unlock()
        }
        return try body(&address.pointee)
        #else
        // ThreadSanitizer understands pthread mutexes itself.
        let locked = pthread_mutex_lock(&storage.pointee.mutex)
        if locked != 0 { fatalError("RJLocks: pthread_mutex_lock failed (\(locked))") }
        defer {
            let unlocked = pthread_mutex_unlock(&storage.pointee.mutex)
            if unlocked != 0 { fatalError("RJLocks: pthread_mutex_unlock failed (\(unlocked))") }
        }
        return try body(&storage.pointee.value)
        #endif
    }
}

#if !RJ_NO_SYNCHRONIZATION
/// The lock of ``RJLock`` and ``RJMutex`` on Linux: one 32-bit futex word, inline (Drepper's
/// "Futexes are tricky", mutex 3): 0 unlocked, 1 locked, 2 locked with waiters. Taking a free
/// lock is one compare-exchange and letting go of one nobody waits for one exchange, both
/// inline; the slow halves (spin, sleep, wake) are in CRJShims. `Synchronization.Mutex` asks
/// for the thread's id on both halves (its priority-inheriting futex needs the owner), which
/// made a lock and unlock cost about three times as much.
@usableFromInline
struct RJLockWord: ~Copyable, @unchecked Sendable {
    @usableFromInline let state = Atomic<UInt32>(0)

    @inlinable init() {}

    @inlinable @inline(__always)
    borrowing func lock() {
        if !state.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged {
            waitForLock()
        }
    }

    @inlinable @inline(__always)
    borrowing func unlock() {
        if state.exchange(0, ordering: .releasing) == 2 { wakeWaiter() }
    }

    @usableFromInline @inline(never)
    borrowing func waitForLock() {
        withUnsafePointer(to: state) { rj_lock_word_wait(UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: UInt32.self)) }
    }

    @usableFromInline @inline(never)
    borrowing func wakeWaiter() {
        withUnsafePointer(to: state) { rj_lock_word_wake(UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: UInt32.self)) }
    }
}
#endif

#if RJ_NO_SYNCHRONIZATION
/// The portable mutex's allocation: the lock and the value it guards.
@usableFromInline
struct PortableMutexStorage<Value> {
    @usableFromInline var mutex = pthread_mutex_t()
    @usableFromInline var value: Value

    @inlinable init(value: consuming Value) {
        self.value = value
    }
}
#endif
