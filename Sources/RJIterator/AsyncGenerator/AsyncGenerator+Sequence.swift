/// `for try await x in generator`: an async generator whose `Input` is `Void` is an
/// `AsyncSequence`. The loop ends when the body returns; the body's error is thrown; cancelling
/// the loop's task throws `CancellationError`, and stops the body if the loop's iterator holds
/// the only reference to the generator (docs/async-generators.md, "Several readers").
///
/// ```swift
/// let squares = AsyncGenerator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i * i) } }
/// for try await s in squares { print(s) }   // 1 4 9
/// ```
extension AsyncGenerator: AsyncSequence where Input == Void {
    @inlinable
    public func makeAsyncIterator() -> AsyncGeneratorIterator<Element, Return> {
        AsyncGeneratorIterator(generator: self)
    }
}

/// The iterator of an ``AsyncGenerator`` with `Input == Void`. After the end or an error it
/// gives `nil`. Cancelling its task withdraws its read; when the iterator holds the only
/// reference to the generator (`for try await x in makeGenerator()`), nobody can read the body
/// any more: it is cancelled, and the read throws once its cleanups have run.
///
/// ```swift
/// var it = squares.makeAsyncIterator()
/// try await it.next()   // 1
/// ```
public struct AsyncGeneratorIterator<Element: Sendable, Return: Sendable>: AsyncIteratorProtocol {
    /// A `var`: whether the loop holds the only reference is asked of it (`isKnownUniquelyReferenced`).
    @usableFromInline var generator: AsyncGenerator<Element, Void, Return>
    /// The generator's storage, read once: a request reaches it without a load (and retain) of it.
    @usableFromInline let storage: AsyncGeneratorStorage<Element, Void, Return>
    @usableFromInline var finished = false
    /// Elements left before the loop checks its task's cancellation again (0: at this one). A
    /// check costs about a quarter of an element (a 16-byte atomic exchange in the runtime), so a
    /// loop checks at its first element and every 32nd; a body that awaits sees one at once.
    @usableFromInline var untilCancellationCheck: UInt8 = 0

    @usableFromInline init(generator: AsyncGenerator<Element, Void, Return>) {
        self.generator = generator
        storage = generator.storage
    }

    @inlinable
    nonisolated(nonsending) public mutating func next() async throws -> Element? {
        try await next(isolation: nil)
    }

    /// The next element, on the caller's executor (`for try await` calls this one).
    /// `nonisolated(nonsending)`, not the requirement's `isolated` parameter, which costs a call
    /// into the concurrency runtime on every element even on the right executor (docs/performance.md).
    ///
    /// ```swift
    /// var it = squares.makeAsyncIterator()
    /// try await it.next(isolation: #isolation)   // 1, on the caller's executor
    /// ```
    @inlinable
    nonisolated(nonsending) public mutating func next(isolation actor: (any Actor)?) async throws -> Element? {
        if finished { return nil }
        let attempt: AsyncGeneratorStorage<Element, Void, Return>.Attempt
        if untilCancellationCheck == 0 {
            untilCancellationCheck = 31
            attempt = storage.attemptOutOfLine(.next(()))
        } else {
            untilCancellationCheck &-= 1
            attempt = storage.serveCallerOutOfLine(.next(()))
        }
        if case .answered(.success(.yielded(let value))) = attempt { return value }
        return try await nextLater(attempt)
    }

    /// The rest of `next` when the body did not just yield: it ended, threw, or awaits.
    @inlinable @inline(never)
    nonisolated(nonsending) mutating func nextLater(_ attempt: AsyncGeneratorStorage<Element, Void, Return>.Attempt) async throws -> Element? {
        do {
            // Whether anyone else can read it, for a cancellation: asked of the references, not
            // of who waits (nobody can copy the reference while this call holds the iterator).
            let lastReader = isKnownUniquelyReferenced(&generator)
            switch try await storage.answerLater(.next(()), attempt, lastReader: lastReader) {
            case .yielded(let value): return value
            case .returned:
                finished = true
                return nil
            }
        } catch GeneratorError.closed where storage.endedByCancellation {
            // Its last reader's cancellation ended the generator (read here through a weak
            // reference): the end, for this reader.
            finished = true
            return nil
        } catch {
            finished = true
            throw error
        }
    }
}
