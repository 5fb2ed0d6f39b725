// Each element is an `rj_await` of the iterator's `next()`, in a Swift task that starts on the
// body's own thread (`Task.immediateDetached`): an element ready already comes back without a hop.

/// Waits, inside an `rj_async` body or an async generator's body, for the next element of an
/// `AsyncSequence`'s iterator: the element, or `nil` at the end; the sequence's error is thrown.
/// The loop over any `AsyncSequence` in a body that cannot write `for try await`:
///
/// ```swift
/// rj_async(on: queue) {
///     var lines = stream.makeAsyncIterator()
///     while let line = try rj_awaitValue(nextOf: &lines) { print(line) }
/// }
/// ```
///
/// Cancelling the body's task (or a reader of its async generator) cancels the pending `next()`
/// and throws `CancellationError`. Outside a body it throws ``RJAsyncError/notInAsync``.
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_awaitValue<Iterator: AsyncIteratorProtocol & SendableMetatype>(nextOf iterator: inout Iterator) throws
    -> Iterator.Element?
{
    guard let current = _RJAwaitHost.current else { throw RJAsyncError.notInAsync }
    guard let generation = current.beginAwait(.asyncSequence) else { throw CancellationError() }
    let box = AsyncIteratorBox(iterator)
    let task = box.startNext { current.completeAwait(RJResult(), for: generation) }
    current.setStop({ task.cancel() }, for: generation)
    let awaited = current.suspend(awaiting: generation)
    // Cancelled (or the host is being closed): the task may still run; the box is its own.
    if let error = awaited.error { throw error }
    // The task completed the await: it is done with the box.
    iterator = box.iterator
    return try box.result.unsafelyUnwrapped.get()
}

/// An iterator lent to the task that runs one `next()`, and what it gave. Touched by that task
/// until it completes the body's await, then by the body: never at the same time.
final class AsyncIteratorBox<Iterator: AsyncIteratorProtocol & SendableMetatype>: @unchecked Sendable {
    var iterator: Iterator
    var result: Result<Iterator.Element?, any Error>?

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }

    /// Starts a task that runs `next()` and calls `done`; on the calling thread until it first
    /// suspends, where the platform has `Task.immediateDetached`.
    func startNext(then done: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        let operation: @Sendable () async -> Void = { [self] in
            await runNext()
            done()
        }
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return Task.immediateDetached(operation: operation)
        }
        return Task.detached(operation: operation)
    }

    /// One `next()` of the iterator, its outcome kept.
    private func runNext() async {
        do {
            result = .success(try await iterator.next())
        } catch {
            result = .failure(error)
        }
    }
}
