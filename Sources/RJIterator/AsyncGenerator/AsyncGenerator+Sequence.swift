/// `for try await x in generator`: an async generator whose `Input` is `Void` is an
/// `AsyncSequence` of its elements. Iteration ends when the body returns, or when another
/// reader's cancellation ended the generator; an error of the body is thrown to the loop;
/// cancelling the loop's task stops the body (its cleanups run) and the loop throws
/// `CancellationError`.
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

/// The iterator of an ``AsyncGenerator`` with `Input == Void`; iterating it advances the
/// generator. After the end, or after an error, it gives `nil`; a generator another reader's
/// cancellation ended (``GeneratorError/closed``) is an end.
///
/// ```swift
/// var it = squares.makeAsyncIterator()
/// try await it.next()   // 1
/// ```
public struct AsyncGeneratorIterator<Element: Sendable, Return: Sendable>: AsyncIteratorProtocol {
    @usableFromInline let generator: AsyncGenerator<Element, Void, Return>
    /// The generator's storage, read once: a request reaches it without a load of the generator
    /// (and without the retain around that load that isolated loops paid per element).
    @usableFromInline let storage: AsyncGeneratorStorage<Element, Void, Return>
    @usableFromInline var finished = false
    /// Elements left before the loop checks its task's cancellation again (0: at this one). A
    /// check reads the task's status with a 16-byte atomic exchange in the Swift runtime, about
    /// a quarter of an element's time when the body does not await: a loop checks at its first
    /// element and every 32nd after. A body that awaits sees a cancellation at once, whatever
    /// this says (the waiting request's cancellation handler).
    @usableFromInline var untilCancellationCheck: UInt8 = 0

    @usableFromInline init(generator: AsyncGenerator<Element, Void, Return>) {
        self.generator = generator
        storage = generator.storage
    }

    @inlinable
    nonisolated(nonsending) public mutating func next() async throws -> Element? {
        try await next(isolation: nil)
    }

    /// The next element, on the caller's executor: `for try await` calls this one, with the
    /// loop's isolation as `actor`.
    ///
    /// `nonisolated(nonsending)`, where the protocol's requirement spells the parameter
    /// `isolated`: both run on the caller's executor, but a function with an `isolated`
    /// parameter starts with a switch to that actor's executor, a call into the concurrency
    /// runtime (the executor looked up, compared, no switch) on every element even when the
    /// caller is already there (docs/performance.md has what it cost).
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
            switch try await storage.answerLater(.next(()), attempt) {
            case .yielded(let value): return value
            case .returned:
                finished = true
                return nil
            }
        } catch GeneratorError.closed where storage.endedByCancellation {
            // Another reader's cancellation ended the generator: the end, for this reader.
            finished = true
            return nil
        } catch {
            finished = true
            throw error
        }
    }
}
