import CRJContext
import RJLocks

/// What the callback closure handed to the awaited work holds (its whole context). Called twice:
/// the second call is ignored and reported. Released uncalled: the await completes with
/// `RJAsyncError.callbackDropped`. A token no work holds is kept by its host for the next await
/// (`_RJAwaitHost.spareToken`): an await answered at once allocates nothing. It holds its host:
/// for an async generator, the storage, never the generator its users hold.
///
/// An await of a callback begins nothing in its host until the work's closure has returned. A
/// call inside the closure, on the body (`rj_await { done in done(v, nil) }`), writes the outcome
/// into the awaiting frame (`slot`, typed): no lock, no `Any`. A call from another thread hands
/// the result over through `state`, a word only compare-exchanges change, so that neither side
/// ever waits for the other:
///
///   state       another thread calls                 the body, after the closure (no call on it)
///   armed       -> calling, keeps the result in          -> registered as await g of its host
///               `early`, -> ready                         (`AwaitState.register`), suspends
///   calling     -                                         -> registered: the caller, finding it
///                                                         so, completes await g through the host
///   ready       -                                         takes `early`, suspends nothing
///   registered  completes await g through the host        -
@usableFromInline
final class CallbackToken: @unchecked Sendable {
    @usableFromInline let host: _RJAwaitHost
    /// Where the `rj_await` is, for the message of a callback called twice; rewritten only by `arm`.
    @usableFromInline @exclusivity(unchecked) var site: AwaitSite
    /// The awaiting body's coroutine (as a number): a call on it is the work calling back inside
    /// its own closure. Rewritten only by `arm`, when nobody else holds the token.
    @usableFromInline @exclusivity(unchecked) var bodyCoroutine: UInt = 0
    /// The awaiting frame's `CallbackOutcome<T>` while the body is inside the work's closure, nil
    /// otherwise; read and written on the body only.
    @usableFromInline @exclusivity(unchecked) var slot: UnsafeMutableRawPointer?
    /// The body called it inside the closure (`slot` holds the outcome); body only.
    @usableFromInline @exclusivity(unchecked) var calledOnBody = false
    /// How many times the callback was called: the first one counts, the second is reported.
    @usableFromInline let calls = RJAtomic<Int>(0)
    /// The hand-over from another thread (the header's table).
    @usableFromInline let state = RJAtomic<UInt>(CallbackToken.armed)
    /// The await the body registered, written before `state` says `registered`.
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// A result from another thread before the body registered, read once `state` says `ready`.
    @exclusivity(unchecked) var early = RJResult()

    @usableFromInline static var armed: UInt { 0 }
    @usableFromInline static var calling: UInt { 1 }
    @usableFromInline static var ready: UInt { 2 }
    @usableFromInline static var registered: UInt { 3 }

    @usableFromInline
    init(_ host: _RJAwaitHost, site: AwaitSite) {
        self.host = host
        self.site = site
    }

    /// Makes the token the callback of an await by the body on `coroutine`, whose outcome goes to
    /// `slot` if the body calls it inside the work's closure. Only while nobody else holds it.
    @inlinable
    final func arm(site: AwaitSite, coroutine: UInt, slot: UnsafeMutableRawPointer) {
        self.site = site
        bodyCoroutine = coroutine
        self.slot = slot
        calledOnBody = false
        calls.store(0, ordering: .relaxed)
        state.store(Self.armed, ordering: .relaxed)
    }

    /// The callback: its first call completes the await, a second one is reported.
    @inlinable
    final func call<T>(_ value: T?, _ error: (any Error)?) {
        let earlier = calls.add(1, ordering: .acquiringAndReleasing).oldValue
        guard earlier == 0 else { return calledAgain(earlier) }
        // The body itself, inside the work's closure: the outcome goes to the awaiting frame.
        if UInt(bitPattern: rj_coro_current()) == bodyCoroutine, let slot {
            slot.assumingMemoryBound(to: CallbackOutcome<T>.self).pointee = CallbackOutcome(value: value, error: error)
            calledOnBody = true
            return
        }
        handOver(RJResult(value: value, error: error, done: false))
    }

    /// A later call (`earlier` calls before it): ignored; the second is reported, once per await
    /// (in every build: it is a bug of the work).
    @usableFromInline @inline(never)
    final func calledAgain(_ earlier: Int) {
        if earlier == 1 { site.reportCalledTwice() }
    }

    /// The first call, on another thread: hands `result` to the body (before it registered) or
    /// completes the await it registered.
    @usableFromInline
    final func handOver(_ result: RJResult) {
        if state.compareExchange(expected: Self.armed, desired: Self.calling, ordering: .acquiringAndReleasing).exchanged {
            early = result
            if state.compareExchange(expected: Self.calling, desired: Self.ready, ordering: .acquiringAndReleasing).exchanged { return }
            // The body registered meanwhile (`register`): its host completes the await.
        }
        host.completeAwait(result, for: generation)
    }

    /// The body registers the await as `generation` (under its host's lock): false when a call on
    /// another thread left its result here already (`early`).
    @usableFromInline
    final func register(as generation: UInt64) -> Bool {
        self.generation = generation
        if state.compareExchange(expected: Self.armed, desired: Self.registered, ordering: .acquiringAndReleasing).exchanged {
            return true
        }
        // A call is handing its result over: it completes the await through the host instead.
        return state.compareExchange(expected: Self.calling, desired: Self.registered, ordering: .acquiringAndReleasing).exchanged
    }

    /// Whether a call on another thread left its result here (`early`), before the body registered.
    @usableFromInline
    final var isReady: Bool { state.load(ordering: .acquiring) == Self.ready }

    /// The result a call on another thread left here, moved out.
    @usableFromInline
    final func takeEarly() -> RJResult {
        exchange(&early, with: RJResult())
    }

    deinit {
        if calls.load(ordering: .acquiring) == 0, state.load(ordering: .acquiring) == Self.registered {
            host.completeAwait(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: generation)
        }
    }
}

/// What a callback gave, kept in the awaiting frame when the body calls it inside the work's
/// closure: typed, so a typed await never boxes it in an `Any`.
@usableFromInline
struct CallbackOutcome<T> {
    @usableFromInline var value: T?
    @usableFromInline var error: (any Error)?

    @inlinable init(value: T? = nil, error: (any Error)? = nil) {
        self.value = value
        self.error = error
    }

    /// What a typed await returns: the value, or the error thrown (`RJAsyncError.unexpectedValue`
    /// for neither).
    @inlinable func get() throws -> T {
        if let error { throw error }
        guard let value else { throw RJAsyncError.unexpectedValue("the callback gave neither a value nor an error") }
        return value
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

    @usableFromInline
    func reportCalledTwice() {
        rj_report("RJIterator: the callback of the rj_await at \(file):\(line) was called twice; the second call is ignored "
                  + "(call an rj_await's callback once)")
    }
}
