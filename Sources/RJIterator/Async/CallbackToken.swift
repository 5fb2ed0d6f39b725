import CRJContext
import RJLocks

/// What the callback closure handed to the awaited work holds (its whole context). Called twice:
/// the second call is ignored and reported. Released uncalled: the await completes with
/// `RJAsyncError.callbackDropped`. A token no work holds is kept for the next await (`reclaim`):
/// an await answered at once allocates nothing. It holds its host: for an async generator, the
/// storage, never the generator its users hold.
@usableFromInline
final class CallbackToken: @unchecked Sendable {
    private let host: _RJAwaitHost
    /// Rewritten only by `reuse`, when nobody else holds the token.
    @exclusivity(unchecked) private var generation: UInt64
    /// Where the `rj_await` is, for the message of a callback called twice; rewritten only by `reuse`.
    @exclusivity(unchecked) private var site: AwaitSite
    /// How many times the callback was called: the second is reported, later ones ignored.
    private let calls = RJAtomic<Int>(0)
    /// The awaiting body's coroutine (as a number): a call on it is the work calling back inside
    /// its own closure. Rewritten only by `reuse`.
    @exclusivity(unchecked) private var bodyCoroutine: UInt
    /// The result of such a call, for the body to take when the work's closure returns
    /// (`takeBodyResult`) without the host's lock; body's thread only. Raw memory kept with the
    /// token: an `RJResult` stored as a value goes through its value witnesses (its `Any`).
    @exclusivity(unchecked) private var bodySlot: UnsafeMutablePointer<RJResult>?

    init(_ host: _RJAwaitHost, _ generation: UInt64, site: AwaitSite) {
        self.host = host
        self.generation = generation
        self.site = site
        bodyCoroutine = UInt(bitPattern: rj_coro_current())
    }

    func call(_ value: Any?, _ error: (any Error)?) {
        // Read before the exchange, whose release publishes it to `reclaim`: after the
        // exchange this call touches nothing of the token that `reuse` rewrites.
        let generation = self.generation
        let site = self.site
        let earlier = calls.add(1, ordering: .acquiringAndReleasing).oldValue
        guard earlier == 0 else {
            // Once per await, in every build: a callback called twice is a bug of the work.
            if earlier == 1 { site.reportCalledTwice() }
            return
        }
        let result = RJResult(value: AnyValue.copy(value), error: error, done: false)
        if UInt(bitPattern: rj_coro_current()) == bodyCoroutine {
            // The body itself, inside the work's closure: it takes the result when the closure returns.
            if bodySlot == nil { bodySlot = .allocate(capacity: 1) }
            bodySlot.unsafelyUnwrapped.initialize(to: result)
            calledOnBody = true
            return
        }
        host.completeAwait(result, for: generation)
    }

    /// Whether `bodyResult` holds the result of such a call (body's thread only).
    @exclusivity(unchecked) private(set) var calledOnBody = false

    /// The result of a call the work made inside its closure (`call`), once the closure returned.
    func takeBodyResult() -> RJResult {
        calledOnBody = false
        return bodySlot.unsafelyUnwrapped.move()
    }

    /// Called by the awaiting body, with the body's only reference, once the work's closure has
    /// returned. If the work kept no reference to the callback, the token is reclaimed here for
    /// the next await (`spare`), and a callback dropped uncalled is reported as `dropped`;
    /// otherwise it is left to the work.
    static func reclaim(_ token: inout CallbackToken) -> (spare: Bool, dropped: Bool) {
        // Unique: every other reference is gone (a reference count is never seen lower than it
        // is), so nobody can call it again.
        guard isKnownUniquelyReferenced(&token) else { return (false, false) }
        return (true, token.calls.add(1, ordering: .acquiring).oldValue == 0)
    }

    /// Makes a reclaimed token (see `reclaim`) the callback of await `generation`.
    func reuse(for generation: UInt64, site: AwaitSite) {
        self.generation = generation
        self.site = site
        bodyCoroutine = UInt(bitPattern: rj_coro_current())
        if calledOnBody { _ = takeBodyResult() }
        calls.store(0, ordering: .relaxed)
    }

    deinit {
        if let bodySlot {
            if calledOnBody { bodySlot.deinitialize(count: 1) }
            bodySlot.deallocate()
        }
        if calls.load(ordering: .acquiring) == 0 {
            host.completeAwait(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: generation)
        }
    }
}

/// Where an `rj_await` was called, for its messages.
@usableFromInline
struct AwaitSite: Sendable {
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt

    @inlinable init(file: StaticString, line: UInt) {
        self.file = file
        self.line = line
    }

    func reportCalledTwice() {
        rj_report("RJIterator: the callback of the rj_await at \(file):\(line) was called twice; the second call is ignored "
                  + "(call an rj_await's callback once)")
    }
}
