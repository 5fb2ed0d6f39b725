// The await of a callback, every form's one path (`rj_await { done in ... }`, the typed
// `rj_awaitValue` forms, `all`, `firstOf`, a timeout): the work's closure is called with a
// callback made of the body's callback token, and the await begins in the host only if the
// closure returned without calling it (CallbackToken.swift). Inlinable, so an await answered at
// once is code specialised for its value's type: no lock, no `Any`, no allocation.

import CRJContext
import Foundation

/// The callback an await hands its work, typed: its only field is the token, so a closure that
/// captures it has the token as its whole context (no allocation), and the outcome it writes is
/// of the type the awaiting frame keeps.
@usableFromInline
struct CallbackOf<T>: Sendable {
    @usableFromInline let token: CallbackToken

    @inlinable init(_ token: CallbackToken) {
        self.token = token
    }

    @inlinable func callAsFunction(_ value: T?, _ error: (any Error)?) {
        token.call(value, error)
    }

    @inlinable func callAsFunction(_ result: Result<T, any Error>) {
        switch result {
        case .success(let value): token.call(value, nil)
        case .failure(let error): token.call(T?.none, error)
        }
    }
}

/// Awaits, in the body running on this thread, the callback that `start` hands the work:
/// reported to dumps as `kind`. `nil` when the body called it inside the work's closure (its
/// outcome is in `outcome`, typed); otherwise the result (called later or elsewhere, dropped,
/// timed out, cancelled, outside a body), in a box: testing an `RJResult?` goes through its
/// value witnesses, a reference is a compare with zero.
@inlinable
func awaitCallback<T>(into outcome: inout CallbackOutcome<T>, as kind: AwaitKind, count: Int = 0, timeout: Double? = nil,
                      site: AwaitSite, _ start: (CallbackOf<T>) -> Void) -> AwaitedLater? {
    guard let current = rj_coro_current(), let host = _RJAwaitHost.host(of: current) else {
        return AwaitedLater(RJResult(value: nil, error: RJAsyncError.notInAsync))
    }
    // Unretained: the running body's host is alive (its driver holds it while the body runs,
    // `suspendRegistered` while it waits); a retain is an atomic operation on the fastest path.
    return host._withUnsafeGuaranteedRef { host in
        if host.isCancelled { return AwaitedLater(RJResult(value: nil, error: CancellationError())) }
        var token = host.spareToken.take() ?? CallbackToken(host, site: site)
        withUnsafeMutablePointer(to: &outcome) { slot in
            token.arm(site: site, coroutine: UInt(bitPattern: current), slot: UnsafeMutableRawPointer(slot))
            start(CallbackOf(token))
            token.slot = nil
        }
        if token.calledOnBody {
            // Nobody else holds it: kept for the next await (else the work keeps it, called).
            if isKnownUniquelyReferenced(&token) { host.spareToken = consume token }
            return nil
        }
        return AwaitedLater(awaitLater(consume token, in: host, as: kind, count: count, timeout: timeout))
    }
}

/// The result of an await that did not complete inside its work's closure.
@usableFromInline
final class AwaitedLater {
    @usableFromInline let result: RJResult

    @usableFromInline init(_ result: RJResult) {
        self.result = result
    }
}

/// The rest of an await whose work's closure returned without the body calling the callback:
/// called on another thread meanwhile, dropped, or to wait for (the await begins now).
@usableFromInline @inline(never)
func awaitLater(_ token: consuming CallbackToken, in host: _RJAwaitHost, as kind: AwaitKind, count: Int, timeout: Double?) -> RJResult {
    var token = token
    let unique = isKnownUniquelyReferenced(&token)
    if token.isReady {
        // Called on another thread before the closure returned.
        let result = token.takeEarly()
        if unique { host.spareToken = token }
        return result
    }
    if unique {
        // The work let the callback go uncalled (no call is in progress: a caller holds it).
        host.spareToken = token
        return RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false)
    }
    switch host.registerAwait(kind, count: count, timeout: timeout, token: token) {
    case .cancelled:
        return RJResult(value: nil, error: CancellationError(), done: false)
    case .takeFromToken:
        return token.takeEarly()
    case .suspend(let generation):
        // The frame must not hold the token while the body waits: the work's release of an
        // uncalled callback is what completes the await then.
        _ = consume token
        if let timeout {
            host.queue.asyncAfter(deadline: .now() + max(0, timeout)) {
                host.completeAwait(RJResult(value: nil, error: RJAsyncError.timedOut), for: generation)
            }
        }
        return host.suspendRegistered(generation)
    }
}

extension _RJAwaitHost {
    /// The await host whose body is the coroutine `current`, if it is one.
    @inlinable
    static func host(of current: OpaquePointer) -> Unmanaged<_RJAwaitHost>? {
        guard let owner = rj_coro_owner(current) else { return nil }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { host in
            guard host.clientKind == awaitHostClientKind, let client = host.client else { return nil }
            return Unmanaged<_RJAwaitHost>.fromOpaque(client.toOpaque())
        }
    }
}

/// ``rj_await(_:file:line:)-((RJAsyncCallback)->Void,_,_)`` of a callback API of the `(T?, Error?) -> Void` shape, written with
/// its type (`{ (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in ... }`): the same
/// result, without converting the callback (a conversion costs an allocation per await).
///
/// ```swift
/// let r = rj_await { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in api.count(completion: done) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_await<T>(_ task: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void,
                        file: StaticString = #fileID, line: UInt = #line) -> RJResult {
    var outcome = CallbackOutcome<T>()
    if let later = awaitCallback(into: &outcome, as: .callback, site: AwaitSite(file: file, line: line), { callback in
        task { value, error in callback(value, error) }
    }) {
        return later.result
    }
    return RJResult(value: outcome.value, error: outcome.error, done: false)
}
