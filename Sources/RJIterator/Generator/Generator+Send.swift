import RJLocks

// Driving a generator by hand, in Python's terms: docs/generators.md ("Driving a generator by hand").
extension Generator {
    /// Runs a generator that has not started to its first `yield` and returns that value
    /// (Python's `next(gen)` on a fresh generator): no input is made up for a body with no `yield` yet.
    ///
    /// - Returns: the first yielded value.
    /// - Throws: ``GeneratorError/finished`` if the body returns without yielding (its value is
    ///   ``returnedValue``) or has completed before, the body's error, or
    ///   ``GeneratorError/alreadyStarted`` on a suspended generator (use ``send(_:)``, ``next(_:)``).
    ///
    /// ```swift
    /// let echo = Generator<String, String, Void> { y in var s = "ready"; while true { s = try y.yield(s) } }
    /// print(try echo.start())       // "ready": no made-up input
    /// print(try echo.send("hi"))    // "hi"
    /// ```
    @inlinable @discardableResult
    public func start() throws -> Element {
        // A body that ended reports how (`finished`, or its error again), as `send` does.
        try Self.element(of: perform(.start))
    }

    /// Resumes the body with `input` (the value its pending `yield` returns) and returns the
    /// next value it yields (Python's `gen.send(x)`).
    ///
    /// - Throws: ``GeneratorError/finished`` when the body returns instead of yielding (its value
    ///   is ``returnedValue``; later `send`s throw it again), the body's error, or
    ///   ``GeneratorError/notStarted`` on a generator that has not started (call ``start()`` first).
    ///
    /// ```swift
    /// let doubler = Generator<Int, Int, Void> { y in var x = 0; while true { x = try y.yield(x * 2) } }
    /// try doubler.start()
    /// print(try doubler.send(21))   // 42
    /// ```
    @inlinable
    public func send(_ input: Input) throws -> Element {
        try Self.element(of: perform(.send(input)))
    }

    /// The body's return value once it has returned; `nil` before, and when it threw or was closed.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, String> { y in try y.yield(1); return "end" }
    /// _ = try g.collect(); g.returnedValue   // "end"
    /// ```
    public var returnedValue: Return? {
        guard state == .completed else { return nil }
        return machine.keptReturn(as: Return.self)
    }

    /// The yielded value of `step`; a return is `GeneratorError.finished`.
    @inlinable
    static func element(of step: GeneratorStep<Element, Return>) throws -> Element {
        switch step {
        case .yielded(let value): return value
        case .returned: throw GeneratorError.finished
        }
    }
}

extension Generator where Input == Void {
    /// The next value, or `nil` once the body has returned (Python's `next(gen, None)`); an
    /// error of the body is thrown. Every call after the end gives `nil` again.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// try g.nextValue()   // 1
    /// try g.nextValue()   // nil
    /// ```
    @inlinable
    public func nextValue() throws -> Element? {
        switch try perform(.next(())) {
        case .yielded(let value): return value
        case .returned: return nil
        }
    }
}
