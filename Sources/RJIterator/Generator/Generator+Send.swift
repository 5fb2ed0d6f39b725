import RJLocks

// The calls a program that drives a generator by hand wants, in Python's terms: start it
// without a made-up input (`next(gen)`), send a value and get the element back
// (`gen.send(x)`), pull one value (`next(gen, None)`).
extension Generator {
    /// Runs a generator that has not started to its first `yield` and returns that value
    /// (Python's `next(gen)` on a fresh generator): no input has to be made up for a body
    /// that has no `yield` to receive one yet.
    ///
    /// - Returns: the first yielded value.
    /// - Throws: ``GeneratorError/finished`` if the body returns without yielding (its value
    ///   is ``returnedValue``) or has completed before, the body's error, or
    ///   ``GeneratorError/alreadyStarted`` on a generator that is suspended (resume it with
    ///   ``send(_:)`` or ``next(_:)``).
    ///
    /// ```swift
    /// let averager = Generator<Double?, Double, Void> { y in
    ///     var (total, count) = (0.0, 0.0)
    ///     var average: Double? = nil
    ///     while true { total += try y.yield(average); count += 1; average = total / count }
    /// }
    /// try averager.start()              // nil: the body waits at its first yield
    /// print(try averager.send(10)!)     // 10.0
    /// print(try averager.send(20)!)     // 15.0
    /// ```
    @inlinable @discardableResult
    public func start() throws -> Element {
        // A body that ended reports how (`finished`, or its error again), as `send` does.
        try Self.element(of: perform(.start))
    }

    /// Resumes the body with `input` (the value its pending `yield` returns) and returns the
    /// next value it yields (Python's `gen.send(x)`).
    ///
    /// - Throws: ``GeneratorError/finished`` when the body returns instead of yielding (its
    ///   value is ``returnedValue``; every later `send` throws it again), the body's error,
    ///   or ``GeneratorError/notStarted`` on a generator that has not started (call
    ///   ``start()`` first: its body has no `yield` yet to receive `input`).
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

    /// The body's return value once it has returned; `nil` before, and when it threw or was
    /// closed.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, String> { y in try y.yield(1); return "end" }
    /// _ = try g.collect()
    /// g.returnedValue   // "end"
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
