import CRJContext
import RJLocks

/// A stackful generator: a body that runs on its own stack and hands values out with `yield`,
/// from any depth of calls, resuming where it left off on the next call. It follows ES6's and
/// Python's generators; docs/generators.md has the semantics beside theirs, and the threads.
///
/// ```swift
/// let fib = Generator<Int, Void, Void> { y in
///     var (a, b) = (0, 1)
///     while true { try y.yield(a); (a, b) = (b, a + b) }
/// }
/// for x in fib.prefix(5) { print(x) }   // 0 1 1 2 3
///
/// let echo = Generator<String, Int, String> { y in
///     let n = try y.yield("first")       // n is the input of the second next
///     return "got \(n)"
/// }
/// _ = try echo.next(0)                    // .yielded("first"); the 0 is ignored
/// _ = try echo.next(42)                   // .returned("got 42")
/// ```
///
/// Not `Sendable`: it runs on the thread that calls it, one call at a time (a second call while
/// one runs throws ``GeneratorError/alreadyRunning``).
public final class Generator<Element, Input, Return>: _RJCoroutineHost {
    /// The body until it has ended; then a closure that captures nothing, so that what the
    /// body captured is released when the generator completes, not when it is freed (a body
    /// that captured something holding the generator would otherwise keep it alive forever).
    @usableFromInline @exclusivity(unchecked) var body: (Yielder<Element, Input>) throws -> Return

    /// `stackSize` checked (0: the default); `stackMode` nil: the default, dedicated with a size.
    @inlinable
    init(checkedStackSize stackSize: Int, stackMode: StackMode? = nil, kind: DumpKind = .generator,
         file: StaticString, line: UInt, body: @escaping (Yielder<Element, Input>) throws -> Return) {
        // Read first, and `body` consumed: an opaque call between storing it and the end of the
        // initialiser otherwise keeps a retain and a release of its context around it.
        let mode = stackMode?.cValue ?? (stackSize != 0 ? RJ_STACK_DEDICATED : rj_default_stack_mode())
        let settings = UInt(stackSize) | UInt(mode.rawValue) << 48 | UInt(rj_default_backend().rawValue) << 56
        self.body = consume body
        // Unmanaged: a strong reference on its own stack would keep a suspended generator alive.
        super.init(main: { address in
            Unmanaged<Generator>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.runBody() }
        }, stackSettings: settings, kind: kind, file: file, line: line)
    }

    /// Makes a generator; nothing of `body` runs until the first ``next(_:)``.
    ///
    /// - Parameters:
    ///   - stackSize: usable bytes of the body's stack (a dedicated one); `nil` takes
    ///     ``RJRuntime/defaultStackSize``. At least ``RJRuntime/minimumStackSize``.
    ///   - stackMode: ``StackMode``; `nil` takes ``RJRuntime/defaultStackMode``.
    ///   - file: where the generator is made, for dumps and messages; leave it out.
    ///   - line: the same; leave it out.
    ///   - body: the generator's code. Call `yield` on the ``Yielder`` it receives, from the
    ///     body or from any function it calls.
    @inlinable
    public convenience init(stackSize: Int? = nil, stackMode: StackMode? = nil,
                            file: StaticString = #fileID, line: UInt = #line,
                            _ body: @escaping (Yielder<Element, Input>) throws -> Return) {
        if let stackSize {
            RJRuntime.checkStackSize(stackSize, "stackSize")
            if stackMode == .shared { sharedStackWithSize() }
        }
        self.init(checkedStackSize: stackSize ?? 0, stackMode: stackMode, file: file, line: line, body: body)
    }

    deinit {
        record.unregister()
        // Tested here, not in the out-of-line close, whose frame costs more than the test.
        if coro != nil { closeOnRelease() }
        machine.releaseKept()
    }

    /// Resumes the body, which runs until its next `yield` or its end.
    ///
    /// - Parameter input: what the suspended `yield` returns (ignored by the first call).
    /// - Returns: `.yielded(value)` or, once the body has returned, `.returned(value)`.
    /// - Throws: the body's error (again on every later call), or
    ///   ``GeneratorError/alreadyRunning`` if the generator is running.
    ///
    /// ```swift
    /// let g = Generator<Int, Int, Void> { y in var total = 0; while true { total += try y.yield(total) } }
    /// _ = try g.next(0)   // .yielded(0)
    /// _ = try g.next(5)   // .yielded(5)
    /// ```
    @inlinable @discardableResult
    public func next(_ input: Input) throws -> GeneratorStep<Element, Return> {
        try perform(.next(input))
    }

    /// Finishes the generator early with `value` (ES6's `return`): the suspended `yield` throws
    /// ``GeneratorExit``, so `defer` blocks and `catch` clauses run (and may yield), then the
    /// generator completes with `.returned(value)`. docs/generators.md, "Return, throw and
    /// close, beside ES6 and Python", has every case.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, String> { y in defer { print("cleanup") }; try y.yield(1); return "end" }
    /// _ = try g.next()
    /// _ = try g.return("early")   // prints "cleanup", gives .returned("early")
    /// ```
    @inlinable @discardableResult
    public func `return`(_ value: Return) throws -> GeneratorStep<Element, Return> {
        try perform(.returning(value))
    }

    /// Throws `error` into the body at its suspended `yield`, where the body may catch it and
    /// yield again or end. A generator that never started completes without running its body;
    /// on a completed one `error` is thrown out and the outcome kept (as in ES6 and Python).
    ///
    /// ```swift
    /// struct Stop: Error {}
    /// let g = Generator<Int, Void, Int> { y in
    ///     do { try y.yield(1) } catch is Stop { return -1 }
    ///     return 0
    /// }
    /// _ = try g.next()
    /// _ = try g.throw(Stop())   // .returned(-1)
    /// ```
    @inlinable @discardableResult
    public func `throw`(_ error: any Error) throws -> GeneratorStep<Element, Return> {
        try perform(.throwing(error))
    }

    /// The context-switch backend in use: ``RJRuntime/contextBackend``, where the process-wide
    /// settings live; this spelling is kept for code written against it.
    @available(*, deprecated, renamed: "RJRuntime.contextBackend")
    public static var contextBackend: String { RJRuntime.contextBackend }
}

extension Generator where Input == Void {
    /// Resumes the body; the same as `next(())`.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// try g.next()   // .yielded(1)
    /// ```
    @inlinable @discardableResult
    public func next() throws -> GeneratorStep<Element, Return> {
        try perform(.next(()))
    }
}

/// Stops the program: `stackSize` and `stackMode: .shared` together.
@usableFromInline @inline(never)
func sharedStackWithSize() -> Never {
    fatalError(
        "RJIterator: stackSize does not apply to a shared-stack generator, which runs on a run stack of "
            + "RJRuntime.defaultStackSize; pass stackMode: .dedicated (or no stackMode) for a stack of its own size")
}
