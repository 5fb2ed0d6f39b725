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

/// A value guarded by an ``RJHintedMutex``: it says which small *hint* of itself the lock word
/// may carry while nobody holds the lock, and takes a hint back when the lock is taken.
///
/// ```swift
/// struct Door: RJHintedValue {
///     var open = false
///     mutating func absorbHint(_ hint: UInt32) { open = hint == 2 }
///     var hintToLeave: UInt32 { open ? 2 : 1 }
/// }
/// ```
public protocol RJHintedValue {
    /// Called holding the lock, when the word carried `hint` (never 0): the value becomes what
    /// the hint says it is (the fast transitions changed the hint, not the value).
    mutating func absorbHint(_ hint: UInt32)
    /// The hint the word carries once the lock is let go: 0 for none (the value is then the
    /// only truth), or a value a fast transition (`RJHintedMutex.transition(from:to:)`) expects.
    var hintToLeave: UInt32 { get }
}

/// A mutex whose lock word, while nobody holds it, also carries a small hint of the guarded
/// value, so that the two or three states a hot path moves between are changed with one
/// compare-exchange and no lock (`transition(from:to:)`), while every other transition takes the
/// lock and sees the whole value (`withLock`). The value and its hint never disagree: a hint is
/// absorbed into the value whenever the lock is taken, and left again when it is let go.
///
/// Word (Linux): bits 0-1 the lock (0 free, 1 held, 2 held with waiters, Drepper's mutex 3),
/// bits 2-31 the hint (0 while held). With the portable lock (Apple platforms, or
/// `-DRJ_NO_SYNCHRONIZATION`) a transition takes a pthread mutex: the same semantics, no fast path.
///
/// Threads: every member may be called from any thread. `~Copyable`: store it as a `let`.
///
/// ```swift
/// let door = RJHintedMutex(Door())
/// _ = door.transition(from: 1, to: 2)      // closed -> open, without the lock
/// door.withLock { print($0.open) }          // true
/// ```
public struct RJHintedMutex<Value: RJHintedValue>: ~Copyable, @unchecked Sendable {
    #if !RJ_NO_SYNCHRONIZATION
    @usableFromInline let word = Atomic<UInt32>(0)
    @usableFromInline let cell: _Cell<Value>

    /// Makes a mutex holding `value` (and its hint).
    @inlinable
    public init(_ value: consuming Value) {
        cell = _Cell(value)
        word.store(cell._address.pointee.hintToLeave << 2, ordering: .relaxed)
    }

    /// Moves the hint from `from` to `to` (both not 0) if the lock is free and carries `from`;
    /// false otherwise (the caller takes the lock). Orders memory as a lock would.
    @inlinable @inline(__always)
    public borrowing func transition(from: UInt32, to: UInt32) -> Bool {
        word.compareExchange(expected: from << 2, desired: to << 2, ordering: .acquiringAndReleasing).exchanged
    }

    /// Whether the lock is free and carries `hint` now (a glance: it may change at once).
    @inlinable @inline(__always)
    public borrowing func carries(_ hint: UInt32) -> Bool {
        word.load(ordering: .acquiring) == hint << 2
    }

    /// Whether the lock is free and carries a hint, whichever (a glance: it may change at once).
    @inlinable @inline(__always)
    public var carriesHint: Bool {
        let seen = word.load(ordering: .acquiring)
        return seen & 3 == 0 && seen != 0
    }

    /// Runs `body` with the value, holding the lock (waiting, asleep, while another thread
    /// holds it).
    @inlinable @inline(__always)
    public borrowing func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        let address = cell._address
        let seen = word.load(ordering: .relaxed)
        let hint: UInt32
        if seen & 3 == 0, word.compareExchange(expected: seen, desired: 1, ordering: .acquiring).exchanged {
            hint = seen >> 2
        } else {
            hint = lockSlowly()
        }
        rj_tsan_acquire(address)
        if hint != 0 { address.pointee.absorbHint(hint) }
        defer {
            let leave = address.pointee.hintToLeave
            rj_tsan_release(address)
            if word.exchange(leave << 2, ordering: .releasing) & 3 == 2 { wakeOne() }
        }
        return try body(&address.pointee)
    }

    /// Takes the lock when it was not free at once: a short spin, then sleep in the kernel.
    /// Returns the hint the word carried.
    @usableFromInline @inline(never)
    borrowing func lockSlowly() -> UInt32 {
        var spins = 0
        while true {
            let seen = word.load(ordering: .relaxed)
            if seen & 3 == 0 {
                // Free. Having slept, others may sleep too: take it "with waiters", so that its
                // release wakes one (at worst, one needless wake).
                if word.compareExchange(expected: seen, desired: spins > 64 ? 2 : 1, ordering: .acquiring).exchanged {
                    return seen >> 2
                }
                continue
            }
            if spins < 64 {
                spins += 1
                continue
            }
            spins = 65
            // Held (its hint bits are 0): say there is a waiter, then sleep while it says so.
            if seen == 1, !word.compareExchange(expected: 1, desired: 2, ordering: .relaxed).exchanged { continue }
            withUnsafePointer(to: word) {
                rj_futex_wait(UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: UInt32.self), 2)
            }
        }
    }

    @usableFromInline @inline(never)
    borrowing func wakeOne() {
        withUnsafePointer(to: word) { rj_futex_wake(UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: UInt32.self)) }
    }
    #else
    @usableFromInline let storage: UnsafeMutablePointer<PortableHintedStorage<Value>>

    /// Makes a mutex holding `value` (and its hint).
    @inlinable
    public init(_ value: consuming Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: PortableHintedStorage(value: value))
        storage.pointee.hint = storage.pointee.value.hintToLeave
        let status = pthread_mutex_init(&storage.pointee.mutex, nil)
        if status != 0 { fatalError("RJLocks: pthread_mutex_init failed (\(status))") }
    }

    deinit {
        pthread_mutex_destroy(&storage.pointee.mutex)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Moves the hint from `from` to `to` if it is `from` (here under the lock).
    @inlinable
    public borrowing func transition(from: UInt32, to: UInt32) -> Bool {
        lock()
        defer { unlock() }
        guard storage.pointee.hint == from else { return false }
        storage.pointee.hint = to
        return true
    }

    /// Whether the lock carries `hint` now (a glance: it may change at once).
    @inlinable
    public borrowing func carries(_ hint: UInt32) -> Bool {
        lock()
        defer { unlock() }
        return storage.pointee.hint == hint
    }

    /// Whether the lock carries a hint, whichever (here under the lock).
    @inlinable
    public var carriesHint: Bool {
        lock()
        defer { unlock() }
        return storage.pointee.hint != 0
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public borrowing func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock()
        let hint = storage.pointee.hint
        if hint != 0 { storage.pointee.value.absorbHint(hint) }
        defer {
            storage.pointee.hint = storage.pointee.value.hintToLeave
            unlock()
        }
        return try body(&storage.pointee.value)
    }

    @inlinable func lock() {
        let locked = pthread_mutex_lock(&storage.pointee.mutex)
        if locked != 0 { fatalError("RJLocks: pthread_mutex_lock failed (\(locked))") }
    }

    @inlinable func unlock() {
        let unlocked = pthread_mutex_unlock(&storage.pointee.mutex)
        if unlocked != 0 { fatalError("RJLocks: pthread_mutex_unlock failed (\(unlocked))") }
    }
    #endif
}

#if RJ_NO_SYNCHRONIZATION
/// The portable hinted mutex's allocation: the lock, the value and its hint.
@usableFromInline
struct PortableHintedStorage<Value> {
    @usableFromInline var mutex = pthread_mutex_t()
    @usableFromInline var value: Value
    @usableFromInline var hint: UInt32 = 0

    @inlinable init(value: consuming Value) {
        self.value = value
    }
}
#endif
