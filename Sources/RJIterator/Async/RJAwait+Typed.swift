// The typed forms of `rj_await`: each waits as `rj_await` does and returns the value as a `T`,
// or throws the error (or an `RJAsyncError` when the value is not a `T`).

import Foundation
import RJPromises

extension RJResult {
    /// What every typed form returns: the error thrown, or the value as a `T`.
    @usableFromInline
    func typedValue<T>(as _: T.Type) throws -> T {
        if let error { throw error }
        guard let typed = value as? T else {
            throw RJAsyncError.unexpectedValue(value == nil ? "the callback gave neither a value nor an error" : "expected \(T.self)")
        }
        return typed
    }
}

/// Waits for `promise` inside an `rj_async` body and returns its value, or throws its error.
///
/// ```swift
/// rj_async { do { show(try rj_awaitValue(fetchUser())) } catch { print(error) } }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_awaitValue<T>(_ promise: Promise<T>) throws -> T {
    let result = rj_await(promise)
    return try result.typedValue(as: T.self)
}

/// Waits for a callback API that delivers a `Result` and returns the value or throws.
///
/// ```swift
/// let data = try rj_awaitValue { done in session.load(url, completion: done) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_awaitValue<T>(_ task: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void,
                             file: StaticString = #fileID, line: UInt = #line) throws -> T {
    var outcome = CallbackOutcome<T>()
    if let later = awaitCallback(into: &outcome, as: .callback, site: AwaitSite(file: file, line: line), { callback in
        task { result in callback(result) }
    }) {
        return try later.result.typedValue(as: T.self)
    }
    return try outcome.get()
}

/// Waits for a callback API of the `(T?, Error?) -> Void` shape (the seed's, most Objective-C
/// APIs') and returns the value or throws; neither: ``RJAsyncError/unexpectedValue(_:)``.
///
/// ```swift
/// let user: User = try rj_awaitValue { done in api.fetchUser(id: 7, completion: done) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_awaitValue<T>(_ task: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void,
                             file: StaticString = #fileID, line: UInt = #line) throws -> T {
    var outcome = CallbackOutcome<T>()
    if let later = awaitCallback(into: &outcome, as: .callback, site: AwaitSite(file: file, line: line), { callback in
        task { value, error in callback(value, error) }
    }) {
        return try later.result.typedValue(as: T.self)
    }
    return try outcome.get()
}

/// Waits for a callback API that only ever succeeds, of the `(T) -> Void` shape, and returns
/// its value. Disfavoured, so that a `Result` callback picks the `Result` form.
///
/// ```swift
/// let answer: Int = try rj_awaitValue { done in compute(completion: done) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@_disfavoredOverload @inlinable
public func rj_awaitValue<T>(_ task: (@escaping @Sendable (T) -> Void) -> Void,
                             file: StaticString = #fileID, line: UInt = #line) throws -> T {
    var outcome = CallbackOutcome<T>()
    if let later = awaitCallback(into: &outcome, as: .callback, site: AwaitSite(file: file, line: line), { callback in
        task { value in callback(value, nil) }
    }) {
        return try later.result.typedValue(as: T.self)
    }
    return try outcome.get()
}

/// Runs a Swift `async` function as a `Task` and waits for it inside an `rj_async` body; returns
/// its value or throws its error. Cancelling the task cancels the Swift task.
///
/// ```swift
/// let text = try rj_awaitValue { try await String(contentsOf: url) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_awaitValue<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
    guard let current = _RJAwaitHost.current else { throw RJAsyncError.notInAsync }
    guard let generation = current.beginAwait(.asyncFunction) else { throw CancellationError() }
    let swiftTask = Task {
        do {
            current.completeAwait(RJResult(value: try await operation(), error: nil), for: generation)
        } catch {
            current.completeAwait(RJResult(value: nil, error: error), for: generation)
        }
    }
    current.setStop({ swiftTask.cancel() }, for: generation)
    let result = current.suspend(awaiting: generation)
    withExtendedLifetime(swiftTask) {}
    return try result.typedValue(as: T.self)
}
