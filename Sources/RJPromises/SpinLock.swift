import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock of one promise: a word in the promise itself, no allocation.
///
/// Held only for a few loads and stores (and, when a promise settles, for dispatching its
/// blocks), so spinning briefly beats sleeping; a holder that is preempted makes the waiter
/// yield its core instead of burning it.
@usableFromInline
struct SpinLock: ~Copyable {
    @usableFromInline let word = Atomic<Bool>(false)

    @inlinable init() {}

    @inlinable @inline(__always)
    func lock() {
        if !word.exchange(true, ordering: .acquiring) { return }
        lockSlow()
    }

    @usableFromInline
    func lockSlow() {
        var spins = 0
        while true {
            while word.load(ordering: .relaxed) {
                spins += 1
                if spins > 64 {
                    sched_yield()
                    spins = 0
                }
            }
            if !word.exchange(true, ordering: .acquiring) { return }
        }
    }

    @inlinable @inline(__always)
    func unlock() {
        word.store(false, ordering: .releasing)
    }
}
