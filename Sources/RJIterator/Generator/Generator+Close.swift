import RJLocks

extension Generator {
    /// Closes the generator, whatever its `Return` type (Python's `gen.close()`): the suspended
    /// `yield` throws ``GeneratorExit``, cleanups run, and the generator completes without a value
    /// (later `next` calls throw ``GeneratorError/closed``). A fresh or completed one is left so.
    ///
    /// - Throws: an error the body throws while closing, or ``GeneratorError/ignoredClose`` when a
    ///   cleanup yields (the generator stays suspended there, as in Python).
    ///
    /// ```swift
    /// let lines = Generator<String, Void, Int> { y in defer { print("file closed") }; try y.yield("a"); return 1 }
    /// _ = try lines.nextValue()   // "a"
    /// try lines.close()           // file closed
    /// ```
    @inlinable
    public func close() throws {
        switch machine.begin(GeneratorOperation<Input, Return>.close) {
        case .reportOutcome:
            // Completed before: left as it is.
            return
        case let action:
            // nil: the exit signal went through every cleanup, closed as asked.
            if case .yielded = try unlessClosed({ try carryOut(action) }) { throw GeneratorError.ignoredClose }
        }
    }
}

extension _RJCoroutineHost {
    /// Runs `operation`, which may close this generator: `nil` when it completed it by closing. The
    /// one place that tells that close from a body that threw `closed` itself (its own error, to
    /// pass on), for `close()`, `yieldAll` and the async generator's.
    @inlinable
    final func unlessClosed<T>(_ operation: () throws -> T) throws -> T? {
        do {
            return try operation()
        } catch GeneratorError.closed where machine.endedByClose {
            return nil
        }
    }
}
