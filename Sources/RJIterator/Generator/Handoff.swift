import CRJContext

// The switches between a caller and a body: the one file of the module that creates, resumes,
// suspends and destroys coroutines. Every operation reaches a body through `switchIn` (the
// resumer's half) and the body comes back through `suspend` (the body's half); a body that ends
// gives its stack back here (`switchIn` destroys the coroutine). Generator+Steps.swift, the
// delegation chain (Generator+Delegation.swift) and the close on release switch only through
// these; the one other reach into the resumer's frame is the body's last act, writing its
// outcome into `completionBox` (`runBody`, Generator+Steps.swift).

extension _RJCoroutineHost {
    /// Makes the coroutine the body runs on, with the generator's stack mode; nil (and
    /// `rj_last_error()` says why) when no stack can be had. Inlined into `startBody`: out of
    /// line it costs a call and its frame on every generator's start (docs/performance.md).
    @inlinable @inline(__always)
    final func makeCoroutine(stackSize: Int, backend: rj_backend, shared: Bool) -> OpaquePointer? {
        // Once per process: where the overflow handler reads a coroutine's site and kind.
        if rj_owner_layout_is_known() == 0 { tellOverflowHandlerTheLayout() }
        let made = shared
            ? rj_coro_create_shared(coroutineEntry, object)
            : rj_coro_create(stackSize, backend, coroutineEntry, object)
        guard let made else { return nil }
        rj_coro_set_owner(made, object)
        coro = made
        return made
    }

    /// The resumer's half of a switch: switches into the body, which runs until it suspends or
    /// ends, with `inbox`, `outbox` and `completionBox` pointing at the resumer's locals (any
    /// may be nil: see the fields). Returns `true` when the body ended: its coroutine is then
    /// destroyed and its stack given back. Called holding `running`. `inline`: the switch is
    /// inlined here where the coroutine allows it (the hot paths); otherwise it is the C core's
    /// `rj_coro_resume`, smaller, for the rare paths.
    @inlinable @inline(__always)
    final func switchIn(
        _ coro: OpaquePointer, inbox: UnsafeMutableRawPointer?, outbox: UnsafeMutableRawPointer?,
        completionBox: UnsafeMutableRawPointer?, inline: Bool = true
    ) -> Bool {
        self.inbox = inbox
        self.outbox = outbox
        self.completionBox = completionBox
        // The floating-point control state belongs to the thread (the inline switch does not
        // carry it, see docs/context-switching.md): debug builds check that the body gave it
        // back as it found it. (`assert` runs its closure in debug builds only.)
        var fpuBefore: UInt64 = 0
        assert({ fpuBefore = rj_fpu_control_state(); return true }())
        let finished = inline ? rj_coro_resume_inline(coro) : rj_coro_resume(coro)
        assert({
            if rj_fpu_control_state() != fpuBefore { fpuStateChanged() }
            return true
        }())
        if finished == 0 { return false }
        destroyCoroutine(coro)
        return true
    }

    /// This generator's body, not started, runs adopted on `current`, the body running there
    /// now delegating to it (Adoption.swift): the coroutine says it is the one running (its owner,
    /// a new id, which is returned); `nil`, changing nothing, when the stack left is less than
    /// it was promised (`rj_coro_adopt`).
    @inlinable @inline(__always)
    final func enterAdopted(on current: OpaquePointer) -> UInt64? {
        let id = rj_coro_adopt(current, object, stackSize)
        return id == 0 ? nil : id
    }

    /// The body adopted on `current` ended: this generator's body, its adopter, runs there again,
    /// with its own id.
    @inlinable @inline(__always)
    final func resumeAfterAdopted(on current: OpaquePointer, id: UInt64) {
        rj_coro_set_body(current, object, id)
    }

    /// Tells the C core's overflow handler where a generator object keeps its creation site and
    /// kind (the same for every generator), so that a stack overflow's message names them.
    @usableFromInline @inline(never)
    final func tellOverflowHandlerTheLayout() {
        let base = UInt(bitPattern: object)
        let recordAt = withUnsafeMutablePointer(to: &record) { UInt(bitPattern: $0) } - base
        let site = Int(recordAt) + MemoryLayout<CoroutineRecord>.offset(of: \CoroutineRecord.site)!
        let kind = Int(recordAt) + MemoryLayout<CoroutineRecord>.offset(of: \CoroutineRecord.kind)!
        let settings = Int(withUnsafeMutablePointer(to: &stackSettings) { UInt(bitPattern: $0) } - base)
        // The same bytes a read through the offsets finds (a stored property's real storage).
        assert(object.load(fromByteOffset: site, as: UInt64.self) == record.site)
        assert(object.load(fromByteOffset: settings, as: UInt.self) == stackSettings)
        rj_set_owner_layout(site, kind, settings)
    }

    /// Gives the coroutine's stack back; the generator has no coroutine afterwards.
    @inlinable @inline(__always)
    final func destroyCoroutine(_ coro: OpaquePointer) {
        rj_coro_destroy(coro)
        self.coro = nil
    }

    /// The body's half of a switch: suspends the running body with `value`; returns how the
    /// body was resumed. Called on the body's own stack, by `Yielder`, `AsyncYielder`,
    /// `rj_yield` and the awaits of `rj_async` tasks and async generators, with `current`, the
    /// running coroutine, which the caller has checked is this generator's.
    ///
    /// Both hand-offs go through the resumer's frame, which is blocked in its resume while the
    /// body runs: the value into its `outbox`, the next signal out of its `inbox`. Through
    /// `rj_coro_in_resumer`: a shared-stack resumer's frames may be copied out meanwhile.
    @inlinable @inline(__always)
    final func suspend<Element, Input>(
        _ current: OpaquePointer, yielding value: Element, resumedWith _: Input.Type, mayRunAdopted: Bool = false
    ) -> ResumeSignal<Input> {
        suspend(current, handingOut: { $0.assumingMemoryBound(to: Element.self).initialize(to: value) },
                resumedWith: Input.self, mayRunAdopted: mayRunAdopted)
    }

    /// `suspend(_:yielding:resumedWith:)` for a caller that puts the value into the outbox itself
    /// (`handOut` gets the slot, uninitialised): the seed API's `rj_yield`, which copies an
    /// `Any?` without Swift's value witnesses (AnyValue.swift).
    @inlinable @inline(__always)
    final func suspend<Input>(
        _ current: OpaquePointer, handingOut handOut: (UnsafeMutableRawPointer) -> Void, resumedWith _: Input.Type,
        mayRunAdopted: Bool = false
    ) -> ResumeSignal<Input> {
        // No outbox while closing on release: a body that yields then is abandoned anyway, but
        // for the first yield of a body adopted on this coroutine, refused (the test is compiled
        // out where `mayRunAdopted` is false: the async generators' and the seed's suspensions).
        // The slots are uninitialised memory of the resumer's frame (`switchIntoBody`): the value
        // is put in, the signal moved out.
        if _fastPath(outbox != nil) {
            handOut(rj_coro_in_resumer(current, outbox.unsafelyUnwrapped))
        } else if mayRunAdopted, refusesAdoptedYieldOnRelease(current) {
            return .close
        }
        rj_coro_suspend_inline(current)
        if machine.closingOnRelease { return .close }
        return rj_coro_in_resumer(current, inbox.unsafelyUnwrapped).assumingMemoryBound(to: ResumeSignal<Input>.self).move()
    }

    /// A body adopted on this coroutine (Adoption.swift) yields from a cleanup while the release
    /// of this generator closes them: its frames sit above the adopter's, so it cannot stay
    /// suspended while the adopter unwinds, as a delegate on a stack of its own does (until its
    /// own release closes it, which throws the exit signal at that yield). Its first such yield
    /// throws the exit signal at once instead, and the unwinding goes on; a second one suspends,
    /// and the release reports an ignored close (docs/generators.md, "Return, throw and close").
    @usableFromInline @inline(never)
    final func refusesAdoptedYieldOnRelease(_ current: OpaquePointer) -> Bool {
        guard let top = rj_coro_owner(current), top != object else { return false }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(top)._withUnsafeGuaranteedRef { $0.machine.refuseYieldOnRelease() }
    }

    /// Called on release, once the generator has left the registry (so no dump reads or holds
    /// it) and nobody else holds it, so it cannot be running: a suspended body is closed (its `yield` throws the exit signal, its cleanups
    /// run, its stack unwinds) or, for a body that cannot take the signal, dropped.
    ///
    /// `cancelledByRelease`: the release cancelled the body too (an async generator's: its
    /// yields and awaits throw `CancellationError` from then on), so a `CancellationError` that
    /// ends the body is the release's own doing, not an error to report.
    @usableFromInline
    final func closeOnRelease(cancelledByRelease: Bool = false) {
        guard let coro, machine.beginCloseOnRelease() else { return }
        if releasePolicy == .abandon {
            destroyCoroutine(coro)
            return machine.completed(with: .closed, kind: .closed)
        }
        // No typed local waits: the body keeps its own outcome (`completionBox` nil).
        if !switchIn(coro, inbox: nil, outbox: nil, completionBox: nil) {
            // The body caught the exit signal and yielded again. Python calls this a
            // RuntimeError; deinit cannot throw, so say it and drop the stack.
            rj_report("RJIterator: generator ignored close: the \(record.kindName) made at \(record.siteText) was released "
                      + "at a yield, and a cleanup of \(bodyThatYielded(coro)) (a defer or a catch) caught the close and "
                      + "yielded again; the rest of the body is dropped without running. Let GeneratorExit go on from "
                      + "cleanups, or close it before releasing it (\(record.howToClose)), where the cleanup's value can be taken")
            destroyCoroutine(coro)
            return machine.completed(with: .closed, kind: .closed)
        }
        machine.completedWithKeptOutcome()
        if machine.endedByError { reportErrorOnRelease(cancelledByRelease: cancelledByRelease) }
    }

    /// Which body yielded on `coro` during a close on release, for its message: this generator's,
    /// or one adopted on its stack.
    final func bodyThatYielded(_ coro: OpaquePointer) -> String {
        guard let top = rj_coro_owner(coro), top != object else { return "its body" }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(top)._withUnsafeGuaranteedRef {
            "the body of the \($0.record.kindName) made at \($0.record.siteText), which it delegates to (run on its stack)"
        }
    }

    /// A body closed on release ended with an error: said on stderr (deinit cannot throw),
    /// unless it is the release's own `CancellationError`.
    @inline(never)
    final func reportErrorOnRelease(cancelledByRelease: Bool) {
        guard case .threw(let error) = machine.outcome else { return }
        if cancelledByRelease, error is CancellationError { return }
        rj_report("RJIterator: the \(record.kindName) made at \(record.siteText) threw \(error) from a cleanup while being "
                  + "closed on release; the error is dropped (a release cannot throw). To handle it, close the generator "
                  + "before releasing it: \(record.howToClose) throws it")
    }
}

/// Stops the program: a body changed the floating-point control state and did not restore it
/// before it yielded or returned. Checked in debug builds.
@usableFromInline @inline(never)
func fpuStateChanged() -> Never {
    fatalError(
        "RJIterator: the generator body changed the floating-point control state (rounding mode or "
            + "exception masks, e.g. with fesetround) and yielded or returned without restoring it. "
            + "The state belongs to the thread, not to the generator: restore it before each yield")
}
