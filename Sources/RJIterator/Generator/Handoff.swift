import CRJContext

// The one file of the module that creates, resumes, suspends and destroys coroutines: every
// operation reaches a body through `switchIn` (the resumer's half) and comes back through
// `suspend` (the body's half). The one other reach into the resumer's frame is the body's last
// act, writing its outcome into `completionBox` (`runBody`).

extension _RJCoroutineHost {
    /// Makes the coroutine the body runs on; nil (`rj_last_error()` says why) when no stack can
    /// be had. Inlined into `startBody`: out of line it costs a call on every generator's start.
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

    /// The resumer's half of a switch, holding `running`: runs the body until it suspends or ends,
    /// with the three slots pointing at the resumer's locals; `true` when it ended (its coroutine
    /// then destroyed). `inline: false` takes the C core's `rj_coro_resume`, smaller, for rare paths.
    @inlinable @inline(__always)
    final func switchIn(
        _ coro: OpaquePointer, inbox: UnsafeMutableRawPointer?, outbox: UnsafeMutableRawPointer?,
        completionBox: UnsafeMutableRawPointer?, inline: Bool = true
    ) -> Bool {
        self.inbox = inbox
        self.outbox = outbox
        self.completionBox = completionBox
        // Debug builds check that the body gave the thread's floating-point control state back
        // (docs/context-switching.md); `assert` runs its closure in debug builds only.
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

    /// The body's half of a switch: hands `value` into the resumer's `outbox`, suspends, and
    /// returns the signal it finds in the resumer's `inbox` (both through `rj_coro_in_resumer`).
    /// `current` is the running coroutine, which the caller checked is this generator's.
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
        // No outbox while closing on release: an adopted body's first yield then is refused
        // (compiled out where `mayRunAdopted` is false). The slots are uninitialised memory.
        if _fastPath(outbox != nil) {
            handOut(rj_coro_in_resumer(current, outbox.unsafelyUnwrapped))
        } else if mayRunAdopted, refusesAdoptedYieldOnRelease(current) {
            return .close
        }
        rj_coro_suspend_inline(current)
        if machine.closingOnRelease { return .close }
        return rj_coro_in_resumer(current, inbox.unsafelyUnwrapped).assumingMemoryBound(to: ResumeSignal<Input>.self).move()
    }

    /// An adopted body yields from a cleanup while release closes it: its frames sit above the
    /// adopter's, so it cannot stay suspended while the adopter unwinds. Its first such yield
    /// throws the exit signal at once; a second one is an ignored close (docs/generators.md).
    @usableFromInline @inline(never)
    final func refusesAdoptedYieldOnRelease(_ current: OpaquePointer) -> Bool {
        guard let top = rj_coro_owner(current), top != object else { return false }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(top)._withUnsafeGuaranteedRef { $0.machine.refuseYieldOnRelease() }
    }

    /// On release, out of the registry and held by nobody: a suspended body is closed (its cleanups
    /// run) or, if it cannot take the exit signal, dropped. `cancelledByRelease`: the release
    /// cancelled the body too, so a `CancellationError` that ends it is not reported.
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
