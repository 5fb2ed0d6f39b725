import CRJContext

/// The awaits of one await host's body, one at a time, kept in the host's state machine under
/// its one lock (an `rj_async` task's, an async generator storage's); these methods are its only
/// transitions, and only the machines call them (`AwaitingMachine`; `.ci/check-structure` checks).
///
/// Each `rj_await` begins a *generation*, completed once by whatever comes first (the callback,
/// its release, a timeout, a promise, a Swift task, the host's cancellation); a completion for
/// an earlier generation is ignored. The driver says when the body has suspended
/// (`bodySuspended`), so a completion never resumes a body that is still running.
///
///   phase           complete(r)              bodySuspended          cancel
///   idle            ignored (stale)          -                      -
///   started         completedEarly(r)        waiting                completedEarly(CancellationError), stop the work
///   completedEarly  ignored                  resumed(r): resumeNow  -
///   waiting         resumed(r): resume       -                      resumed(CancellationError): resume, stop the work
///   resumed         ignored                  -                      -
///
/// `begin` moves `idle` to `started` before the work starts (or refuses: cancelled). An await of
/// a callback begins nothing until the work's closure has returned: a callback called inside it
/// never reaches the host (CallbackToken.swift), and one that was not is `register`ed then. The
/// body takes the result out of `completedEarly` before it suspends (`takeEarly`) or out of
/// `resumed` (`takeResumed`), back to `idle`. The result stays here, not crossing the switch, so
/// what crosses it stays trivial.
@usableFromInline
struct AwaitState {
    @usableFromInline
    enum Phase: UInt8 {
        case idle
        case started
        /// Completed before the body suspended: the body takes `result` without switching.
        case completedEarly
        case waiting
        /// Completed after the body suspended (`result` holds it): it is being resumed.
        case resumed
    }

    /// The current await's generation (0: none began yet).
    @usableFromInline private(set) var generation: UInt64 = 0
    /// Where the current await is (a trivial word: switching on it copies nothing).
    @usableFromInline private(set) var phase = Phase.idle
    /// The result, in `completedEarly` and `resumed` only (not an `RJResult?`: every test and
    /// store of one goes through `Optional`'s value witnesses, the phase says it already).
    @usableFromInline private(set) var result = RJResult()
    /// What stops the work if the host is cancelled, in `started` and `waiting` only.
    @usableFromInline private(set) var stop: (@Sendable () -> Void)?
    /// The stop answers the await itself (an await of another generator's step: its request's
    /// answer completes it), so the cancellation does not complete it.
    @usableFromInline private(set) var stopAnswers = false
    /// Every await gives `CancellationError` at once from now on: the host was cancelled (a task's
    /// `cancel()`, a cancelled reader of an async generator) or is being closed on release.
    @usableFromInline private(set) var cancelled = false
    /// What a dump reports the body waiting on.
    @usableFromInline private(set) var record = AwaitRecord()
    @inlinable init() {}

    /// The body begins an await of `kind` (one at a time), before its work starts: its
    /// generation, or 0 when the host is cancelled (the await gives `CancellationError` at once).
    @usableFromInline
    mutating func begin(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil) -> UInt64 {
        if cancelled { return 0 }
        generation &+= 1
        phase = .started
        record.note(kind, count: count, timeout: timeout)
        return generation
    }

    /// What `register` decided.
    @usableFromInline
    enum Registration {
        /// Registered as await `generation`: the body suspends; the token's call completes it.
        case suspend(UInt64)
        /// The token's callback was called on another thread meanwhile: its result is in the token.
        case takeFromToken
        /// The host is cancelled: `CancellationError`, and a later call of the callback is ignored.
        case cancelled
    }

    /// The work of an await of `token`'s callback returned without calling it: the await begins
    /// now, as the body suspends, unless the callback was called meanwhile (`CallbackToken`).
    @usableFromInline
    mutating func register(_ kind: AwaitKind, count: Int, timeout: Double?, token: CallbackToken) -> Registration {
        if cancelled { return .cancelled }
        generation &+= 1
        guard token.register(as: generation) else { return .takeFromToken }
        phase = .started
        record.note(kind, count: count, timeout: timeout)
        record.began()
        return .suspend(generation)
    }

    /// What stops the work of await `generation` if the host is cancelled while it waits.
    /// Returns `true` when the await was cancelled already: the caller stops the work now.
    @usableFromInline
    mutating func setStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64, answersAwait: Bool = false) -> Bool {
        guard generation == self.generation else { return false }
        switch phase {
        case .started, .waiting:
            self.stop = stop
            stopAnswers = answersAwait
            return false
        case .completedEarly, .resumed:
            return cancelled && result.error is CancellationError
        case .idle:
            return false
        }
    }

    /// What `complete` decided.
    @usableFromInline
    enum Completion {
        /// Another completion came first, or a later await began.
        case ignored
        /// Kept for the body, which has not suspended yet.
        case kept
        /// The body waits: the caller resumes it (it takes the result, `takeResumed`).
        case resume
    }

    /// Completes await `generation` with `result`, unless something completed it first.
    @usableFromInline
    mutating func complete(_ result: RJResult, for generation: UInt64) -> Completion {
        guard generation == self.generation else { return .ignored }
        switch phase {
        case .started:
            phase = .completedEarly
            self.result = result
            stop = nil
            stopAnswers = false
            return .kept
        case .waiting:
            phase = .resumed
            self.result = result
            stop = nil
            stopAnswers = false
            record.ended()
            return .resume
        case .idle, .completedEarly, .resumed:
            return .ignored
        }
    }

    /// What `takeEarly` decided.
    @usableFromInline
    enum EarlyTake {
        /// Nothing yet: the body suspends (the suspension is stamped for the dump).
        case suspend
        /// The result came already: the body takes it (`takeResult`, the phase is `completedEarly`).
        case stored
    }

    /// The body, before it suspends in await `generation`: whether the result came already (no switch).
    @usableFromInline
    mutating func takeEarly(for generation: UInt64) -> EarlyTake {
        guard generation == self.generation else { return .suspend }
        switch phase {
        case .completedEarly:
            record.ended()
            return .stored
        case .started:
            record.began()
            return .suspend
        case .idle, .waiting, .resumed:
            return .suspend
        }
    }

    /// The result, moved out (`completedEarly` or `resumed` back to `idle`).
    @usableFromInline
    mutating func takeResult() -> RJResult {
        phase = .idle
        return exchange(&result, with: RJResult())
    }

    /// What `bodySuspended` decided.
    @usableFromInline
    enum Suspension {
        /// The completion resumes the body.
        case wait
        /// Completed meanwhile: the driver resumes the body at once (it takes the result).
        case resumeNow
    }

    /// The host's driver, once the body has suspended in await `generation`.
    @usableFromInline
    mutating func bodySuspended(_ generation: UInt64) -> Suspension {
        guard generation == self.generation else { return .wait }
        switch phase {
        case .started:
            phase = .waiting
            return .wait
        case .completedEarly:
            phase = .resumed
            record.ended()
            return .resumeNow
        case .idle, .waiting, .resumed:
            // The body suspends only in the await it began, once: nothing else reaches here.
            return .wait
        }
    }

    /// The body, resumed from its await: the result (`resumed` back to `idle`).
    @usableFromInline
    mutating func takeResumed() -> RJResult {
        // Only a completion's resume switches into a body suspended in an await.
        guard phase == .resumed else { return RJResult(value: nil, error: CancellationError(), done: false) }
        return takeResult()
    }

    /// What `cancel` decided.
    @usableFromInline
    struct Cancellation {
        /// Stops the work of the await that was pending (run outside the lock).
        @usableFromInline var stop: (@Sendable () -> Void)?
        /// The body was waiting: the caller resumes it (with `CancellationError`).
        @usableFromInline var resume = false

        @inlinable init(stop: (@Sendable () -> Void)? = nil, resume: Bool = false) {
            self.stop = stop
            self.resume = resume
        }
    }

    /// The host is cancelled: the pending await, and every later one, gives `CancellationError`.
    @usableFromInline
    mutating func cancel() -> Cancellation {
        cancelled = true
        if stopAnswers, phase == .started || phase == .waiting {
            return Cancellation(stop: stop.take())
        }
        switch phase {
        case .started:
            phase = .completedEarly
            result = RJResult(value: nil, error: CancellationError(), done: false)
            return Cancellation(stop: stop.take())
        case .waiting:
            phase = .resumed
            result = RJResult(value: nil, error: CancellationError(), done: false)
            record.ended()
            return Cancellation(stop: stop.take(), resume: true)
        case .idle, .completedEarly, .resumed:
            return Cancellation()
        }
    }

}

/// A state machine that keeps an await host's awaits (`RJAsyncTaskStateMachine`,
/// `AsyncGeneratorStateMachine`): every await event is one of its methods, which the host calls
/// holding its lock; nothing else writes its `awaits` (`.ci/check-structure` checks).
@usableFromInline
protocol AwaitingMachine {
    var awaits: AwaitState { get set }
}

extension AwaitingMachine {
    /// The body begins an await of `kind`: its generation, or `nil` when the host is cancelled.
    /// `answeredBy`: the work answers the await even when the host
    /// is cancelled (another generator's step); its stop is set in the same hold, so a
    /// cancellation either comes first (`nil`) or finds the stop and calls it, and never
    /// completes the await itself.
    @inlinable
    mutating func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil,
                             answeredBy stop: (@Sendable () -> Void)? = nil) -> UInt64? {
        let generation = awaits.begin(kind, count: count, timeout: timeout)
        if generation == 0 { return nil }
        if let stop { _ = awaits.setStop(stop, for: generation, answersAwait: true) }
        return generation
    }

    /// An await of `token`'s callback whose work returned without calling it (`AwaitState.register`).
    @inlinable
    mutating func registerAwait(_ kind: AwaitKind, count: Int, timeout: Double?, token: CallbackToken) -> AwaitState.Registration {
        awaits.register(kind, count: count, timeout: timeout, token: token)
    }

    /// What stops the work of await `generation` if the host is cancelled while it waits; `true`
    /// when the await was cancelled already (the caller stops the work now).
    @inlinable
    mutating func setAwaitStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) -> Bool {
        awaits.setStop(stop, for: generation)
    }

    @inlinable
    mutating func completeAwait(_ result: RJResult, for generation: UInt64) -> AwaitState.Completion {
        awaits.complete(result, for: generation)
    }

    @inlinable
    mutating func takeEarly(for generation: UInt64) -> AwaitState.EarlyTake {
        awaits.takeEarly(for: generation)
    }

    @inlinable
    mutating func takeAwaitResult() -> RJResult {
        awaits.takeResult()
    }

    @inlinable
    mutating func takeResumedAwait() -> RJResult {
        awaits.takeResumed()
    }

    @inlinable
    mutating func awaitSuspended(_ generation: UInt64) -> AwaitState.Suspension {
        awaits.bodySuspended(generation)
    }

    /// The host is cancelled: the pending await, and every later one, gives `CancellationError`.
    @inlinable
    mutating func cancelAwaits() -> AwaitState.Cancellation {
        awaits.cancel()
    }
}
