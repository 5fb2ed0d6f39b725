#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work that would otherwise nest without bound in a loop instead of by recursion: a
/// promise settled while another settles, a chain of 100,000 pending promises freed one by the
/// other. The first call on a thread drains a per-thread list; a nested call only appends.
@usableFromInline
enum Trampoline {
    enum Item {
        case run(@Sendable () -> Void)
        case drop(Any)
        case done
    }

    final class State {
        var draining = false
        var items: [Item] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            Unmanaged<State>.fromOpaque(pointer!).release()
        }
        return key
    }()

    private static var current: State {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = State()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// Runs `work` now, or, inside another trampolined call on this thread, right after it.
    @usableFromInline
    static func run(_ work: @escaping @Sendable () -> Void) {
        let state = current
        state.items.append(.run(work))
        drain(state)
    }

    /// Releases `value` (consumed: the caller keeps no reference) inside the loop, so that
    /// whatever its release frees in turn is queued instead of nested.
    @usableFromInline
    static func drop(_ value: consuming Any) {
        let state = current
        state.items.append(.drop(value))
        drain(state)
    }

    private static func drain(_ state: State) {
        if state.draining { return }
        state.draining = true
        var next = 0
        while next < state.items.count {
            // Move the item out, so this iteration holds the only reference and its release
            // (at the end of the iteration) happens while `draining` is still set.
            let item = state.items[next]
            state.items[next] = .done
            next += 1
            if case .run(let work) = item { work() }
        }
        state.items.removeAll(keepingCapacity: state.items.count <= 64)
        state.draining = false
    }
}
