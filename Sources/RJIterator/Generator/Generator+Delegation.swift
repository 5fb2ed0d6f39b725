import CRJContext
import RJLocks

// Delegation (`yieldAll`, ES6 `yield*`, Python `yield from`) without a switch per level.
//
// A body that delegates to `inner` takes `inner`'s state word (`running`) and keeps it for
// the whole delegation: `inner` is owned by the delegating generator, and nobody else can
// resume it meanwhile. The body records the link (`delegate` / `delegator`) and suspends
// once, handing out `inner`'s first value. From then on, a `next` on the delegating
// generator does not switch into its body: it switches straight into the deepest generator
// of the chain (`resumeDelegate`), whose yielded value goes straight to the caller. So a
// value costs one round trip whatever the depth of the chain of `yieldAll`s, where a body
// that forwarded each value itself would cost one per level.
//
// Only when a delegate completes does its delegator's body run again (`.delegateDone`):
// `yieldAll` reads the outcome and the body goes on, or yields, or delegates anew, or
// completes in its turn (and its own delegator runs). `throw`, `return` and `close` go
// through the delegating body, which forwards them to `inner`, one level at a time: they
// are rare, and their semantics (ES6's `yield*`) are decided there, in `delegate(to:)`.
//
// All of a chain is touched by one thread at a time: the one that holds the outermost
// generator's `running` state. The delegates' own state words stay `running` meanwhile.

extension _RJCoroutineHost {
    /// Switches into this delegate with `inbox`, the caller's local holding its signal, and
    /// `outbox` for the value it yields; nothing typed is needed (a body that ends keeps its own
    /// outcome, `completionBox` being nil). Returns `true` when it suspended, `false` when its
    /// body ended (then it is `completed`). Called by the thread that owns the chain.
    @usableFromInline
    final func switchAsDelegate(outbox: UnsafeMutableRawPointer, inbox: UnsafeMutableRawPointer) -> Bool {
        let coro = self.coro.unsafelyUnwrapped
        self.inbox = inbox
        self.outbox = outbox
        completionBox = nil
        var fpuBefore: UInt64 = 0
        assert({ fpuBefore = rj_fpu_control_state(); return true }())
        let finished = rj_coro_resume_inline(coro)
        assert({
            if rj_fpu_control_state() != fpuBefore { fpuStateChanged() }
            return true
        }())
        if finished == 0 { return true }
        rj_coro_destroy(coro)
        self.coro = nil
        stateWord.store(.completed, ordering: .releasing)
        return false
    }

    /// The deepest generator of the chain of delegates that starts at `self` (`self` if it
    /// does not delegate).
    @inlinable
    final func deepestOfChain() -> Unmanaged<_RJCoroutineHost> {
        var node = Unmanaged.passUnretained(self)
        while let next = node._withUnsafeGuaranteedRef({ $0.delegate }) { node = next }
        return node
    }

    /// Links a body's generator to the delegate it now owns.
    @inlinable
    final func link(delegate inner: _RJCoroutineHost) {
        delegate = Unmanaged.passUnretained(inner)
        inner.delegator = Unmanaged.passUnretained(self)
        deepestDelegate = nil
        inner.deepestDelegate = nil
    }

    /// Undoes `link` (a no-op when the resumer already did, as a delegate completed).
    @inlinable
    final func unlink(delegate inner: _RJCoroutineHost) {
        if let current = delegate, current.toOpaque() == Unmanaged.passUnretained(inner).toOpaque() {
            delegate = nil
            inner.delegator = nil
        }
        deepestDelegate = nil
    }
}

extension Generator {
    /// `next(input)` on a generator whose body is suspended in `yieldAll`: resumes the
    /// deepest delegate with `input`. A delegate that completes resumes its delegator's
    /// body, and so on up; the first one that yields gives this call its value. Called
    /// holding `running`.
    @inlinable
    func resumeDelegate(with input: Input) throws -> GeneratorStep<Element, Return> {
        var value: Element? = nil
        var node = deepestDelegate ?? deepestOfChain()
        var signal = ResumeSignal<Input>.value(input)
        while true {
            var incoming: ResumeSignal<Input>? = signal
            let suspended = node._withUnsafeGuaranteedRef { delegate in
                withUnsafeMutablePointer(to: &incoming) { signalSlot in
                    withUnsafeMutablePointer(to: &value) {
                        delegate.switchAsDelegate(outbox: UnsafeMutableRawPointer($0), inbox: UnsafeMutableRawPointer(signalSlot))
                    }
                }
            }
            if suspended {
                // It yielded, or started a delegation of its own (then the new deepest one
                // yielded): the next `next` resumes the deepest.
                deepestDelegate = node._withUnsafeGuaranteedRef { $0.deepestOfChain() }
                stateWord.store(.suspended, ordering: .releasing)
                return .yielded(value.take().unsafelyUnwrapped)
            }
            // It completed: its delegator's `yieldAll` reads how.
            let parent = node._withUnsafeGuaranteedRef { completed in
                let parent = completed.delegator.unsafelyUnwrapped
                completed.delegator = nil
                parent._withUnsafeGuaranteedRef { $0.delegate = nil }
                return parent
            }
            if parent.toOpaque() == Unmanaged.passUnretained(self).toOpaque() {
                deepestDelegate = nil
                return try switchIntoBody(coro.unsafelyUnwrapped, signal: .delegateDone)
            }
            node = parent
            signal = .delegateDone
        }
    }

    /// The first step of a delegation: runs this generator (fresh, or suspended with a Void
    /// input) to its first `yield`, keeping `running` when it yields, so that the delegating
    /// body owns it.
    @inlinable
    func startAsDelegate() throws -> GeneratorStep<Element, Return> {
        switch acquire() {
        case .created: return try stepCreated(.start, keepingRunning: true)
        case .suspended: return try stepSuspended(.start, keepingRunning: true)
        case .running: throw GeneratorError.alreadyRunning
        case .completed: return try stepCompleted(.start)
        }
    }

    /// One forwarded operation on this owned delegate: `nil` when it completed this
    /// generator by closing it, which the delegating body turns into its own exit.
    @inlinable
    func stepAsDelegate(_ operation: Operation) throws -> GeneratorStep<Element, Return>? {
        do {
            return try stepSuspended(operation, keepingRunning: true)
        } catch GeneratorError.closed {
            if case .closed = keptCompletion { return nil }
            throw GeneratorError.closed
        }
    }

    /// Closes this owned delegate for a delegating generator that is itself being closed
    /// with `exit`: a `return(v)` is forwarded as `return(v)` when the types agree (ES6
    /// `yield*`), anything else as a close.
    @inlinable
    func closeAsDelegate(_ exit: GeneratorExit) throws -> GeneratorStep<Element, Return>? {
        if let pending = exit.pendingReturn, pending.type == Return.self {
            return try stepAsDelegate(.returning(pending.value as! Return))
        }
        return try stepAsDelegate(.close)
    }

    /// Gives an owned delegate that is still suspended back to whoever may resume it.
    @inlinable
    func releaseAsDelegate() {
        if coro != nil, stateWord.load(ordering: .relaxed) == .running {
            stateWord.store(.suspended, ordering: .releasing)
        }
    }
}

extension Yielder {
    /// `yieldAll(inner)`, run by the body of the generator `host`.
    @inlinable
    func delegate<R>(to inner: Generator<Element, Input, R>) throws -> R {
        var step = try inner.startAsDelegate()
        // From here `inner` is owned until it completes; if this body leaves `yieldAll`
        // while `inner` is still suspended, it is handed back.
        defer { inner.releaseAsDelegate() }
        // The exit this generator is being closed with, when `step` is `inner`'s answer to
        // that close (forwarded as `inner.return` or a close).
        var exit: GeneratorExit? = nil
        while true {
            let value: Element
            switch step {
            case .returned(let result):
                // ES6: when the forwarded return completes `inner`, this generator returns
                // with `inner`'s value (the types agreeing); otherwise `yield*` evaluates to it.
                if let exit { throw exit.continued(afterInnerReturned: result) }
                return result
            case .yielded(let yielded):
                value = yielded
            }
            if let exit {
                if host._withUnsafeGuaranteedRef({ $0.closingOnRelease }) {
                    // Released while `inner` yields from its cleanup: the value has nowhere to
                    // go. This body unwinds; `inner` stays suspended and is closed on its own
                    // release.
                    throw exit
                }
                // ES6: `inner` answered the return by yielding; the return is spent, and the
                // delegation goes on as if it had been a `next`.
            }
            exit = nil
            let current = runningBody()
            let signal = host._withUnsafeGuaranteedRef { host in
                host.link(delegate: inner)
                defer { host.unlink(delegate: inner) }
                return host.suspend(current, yielding: value, resumedWith: Input.self)
            }
            let next: GeneratorStep<Element, R>?
            switch signal {
            case .delegateDone:
                // `inner` was driven to its end by the resumer: its kept outcome says how.
                next = try inner.stepCompleted(.start)
            case .value(let input):
                next = try inner.stepAsDelegate(.next(input))
            case .error(let error):
                next = try inner.stepAsDelegate(.throwing(error))
            case .close:
                let closing = host._withUnsafeGuaranteedRef { $0.takeExit() }
                exit = closing
                next = try inner.closeAsDelegate(closing)
            }
            guard let next else {
                // `inner` completed by closing: a body being closed goes on closing; otherwise
                // someone else closed `inner`, which has no value to give.
                if let exit { throw exit }
                throw GeneratorError.closed
            }
            step = next
        }
    }
}
