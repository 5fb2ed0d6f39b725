import CRJContext
import RJLocks

/// A stackful generator: a body that runs on its own stack and hands values out with `yield`,
/// from any depth of calls, resuming where it left off on the next call.
///
/// The semantics follow ES6 generators and Python's (this list decides where they differ):
/// - Nothing runs until the first `next`; the input of that first `next` is ignored.
///   `yield` returns the input of the `next` that resumed it.
/// - When the body returns `r`, that call gives `.returned(r)`, and so does every later one.
///   When the body throws, that call throws the error, and every later one throws it again.
/// - ``throw(_:)`` makes the suspended `yield` throw; ``return(_:)`` makes it throw a private
///   exit signal, so `defer` blocks and `catch` clauses run before the generator completes
///   (a cleanup may yield; the return still completes with its value afterwards).
/// - Releasing a suspended generator closes it the same way: its `defer`s run and everything
///   its stack holds is released.
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
/// Threads: a generator runs on the thread that calls `next`, `return` or `throw`, until the
/// body yields or ends. A suspended generator may be resumed on any thread, one call at a
/// time; a second call while one runs throws ``GeneratorError/alreadyRunning``. The type is
/// not `Sendable` (its body and values need not be): to hand one to another thread, vouch
/// for it yourself (for example `nonisolated(unsafe)`), as with any non-`Sendable` value.
public final class Generator<Element, Input, Return>: _RJCoroutineHost {
    /// The body until it has ended; then a closure that captures nothing, so that what the
    /// body captured is released when the generator completes, not when it is freed (a body
    /// that captured something holding the generator would otherwise keep it alive forever).
    @usableFromInline @exclusivity(unchecked) var body: (Yielder<Element, Input>) throws -> Return

    /// Makes a generator with a checked `stackSize` (0: the default) and a stack mode (nil:
    /// the default, but dedicated when a size is given).
    @inlinable
    init(checkedStackSize stackSize: Int, stackMode: StackMode? = nil, kind: DumpKind = .generator,
         file: StaticString, line: UInt, body: @escaping (Yielder<Element, Input>) throws -> Return) {
        // Read first, and `body` consumed (its lifetime ends where it is stored): an opaque call
        // between storing `body` and the end of the initialiser (the registration in
        // `super.init`) otherwise makes the optimiser keep a retain and a release of the
        // closure's context around it.
        let mode = stackMode?.cValue ?? (stackSize != 0 ? RJ_STACK_DEDICATED : rj_default_stack_mode())
        let settings = UInt(stackSize) | UInt(mode.rawValue) << 48 | UInt(rj_default_backend().rawValue) << 56
        self.body = consume body
        // No strong reference to the generator may live on its own stack, or a suspended
        // generator could never be released: go through Unmanaged, never through a cast that
        // hands back an owned reference.
        super.init(main: { address in
            Unmanaged<Generator>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.runBody() }
        }, stackSettings: settings, kind: kind, file: file, line: line)
    }

    /// Makes a generator; nothing of `body` runs until the first ``next(_:)``.
    ///
    /// - Parameters:
    ///   - stackSize: usable bytes of the body's stack; `nil` takes
    ///     ``RJRuntime/defaultStackSize`` (256 KiB). At least ``RJRuntime/minimumStackSize``.
    ///     The stack is allocated when the body first runs and committed page by page. A size
    ///     means a dedicated stack.
    ///   - stackMode: a stack of its own, or a shared run stack with the frames copied out
    ///     while suspended (``StackMode``); `nil` takes ``RJRuntime/defaultStackMode``.
    ///   - file: the file the generator is made in, for ``RJRuntime/dump(stuckAfter:)`` and
    ///     the stack overflow message; leave it out.
    ///   - line: the line it is made at, for the same; leave it out.
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
        // A generator that completed, or never started, has no coroutine: nothing to close
        // (tested here, not in the out-of-line close, whose frame costs more than the test).
        if coro != nil { closeOnRelease() }
        // The outcome or pending value `kept` holds, if it holds a reference (KeptState.swift).
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

    /// Finishes the generator early with `value`: the suspended `yield` throws a private exit
    /// signal, so pending `defer` blocks and `catch` clauses run, then the generator completes
    /// with `.returned(value)` (ES6's `return`).
    ///
    /// A cleanup may yield: each value it yields is the result of this call (or of the `next`
    /// that resumed the cleanup), and once the signal has gone through every cleanup the step
    /// is `.returned(value)`. A cleanup that returns a value of its own overrides `value`; one
    /// that throws makes that step throw. A body that catches the signal and yields again stays
    /// suspended. While the body delegates with `yieldAll`, the inner generator is returned (or
    /// closed) first. On a generator that never started, or has completed, the result is
    /// `.returned(value)` and nothing runs; a completed generator keeps its outcome for `next`.
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

    /// Throws `error` into the body at its suspended `yield`. The body may catch it and yield
    /// again (that value is the result) or end. On a generator that never started, the
    /// generator completes without running the body and `error` is thrown out (and again by
    /// every later call). On a completed generator `error` is thrown out and the generator
    /// keeps its outcome for `next` (as in ES6 and Python).
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
