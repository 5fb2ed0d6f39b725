import CRJContext
import RJLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// How a dump reads the coroutines (docs/swift-core.md, "What a dump reads"): no object read here
// is freed meanwhile (a release waits in `deinit` while a dump is announced); a suspended
// generator is held while its stack is read (`holdForDump`, the compare-exchange a resume
// uses); a generator running on another thread is not read; names are looked up after the
// registry is let go.

/// What was read of one generator while the registry was held.
struct RawCoroutine {
    /// What every generator says of itself, whatever its state: set before it was registered.
    init(_ host: _RJCoroutineHost, at object: UnsafeMutableRawPointer, state: GeneratorState) {
        self.object = object
        kind = host.record.kind
        file = host.record.file.map { String(cString: $0) } ?? "?"
        line = Int(host.record.line)
        self.state = state
    }

    let object: UnsafeMutableRawPointer
    let kind: DumpKind
    let file: String
    let line: Int
    var state: GeneratorState
    var id: UInt64?
    var shared: Bool?
    var thread: Int?
    var waiting: CoroutineDump.Coroutine.Waiting?
    var waitingFor: Double?
    var delegatedFrom: UInt64?
    /// For a body adopted on another generator's stack (Adoption.swift): that generator's id.
    var runsOnStackOf: UInt64?
    var pcs: [UInt] = []
}

extension RJRuntime {
    /// A snapshot of every live `Generator`, `RJIterator`, `rj_async` task and `AsyncGenerator`:
    /// kind, state, where it was made, what it waits on, where it is suspended. Any thread may
    /// take one (docs/debugging.md).
    ///
    /// - Parameter stuckAfter: an await suspended at least this many seconds is marked
    ///   `isStuck` (a callback never called, a promise never settled).
    ///
    /// ```swift
    /// let task = rj_async(on: queue) { _ = rj_await { _ in } }   // a callback never called
    /// print(RJRuntime.dump(stuckAfter: 0))
    /// // RJIterator: 1 coroutine (1 suspended, 0 running, 0 created, 0 completed); 1 waiting longer than 0 ms
    /// //
    /// // #7 rj_async task, suspended in rj_await of a callback for 12 ms, made at Demo/main.swift:1, ...
    /// ```
    public static func dump(stuckAfter: Double = 10) -> CoroutineDump {
        let now = rj_monotonic_ns()
        var raws: [RawCoroutine] = []
        var delegates: [UnsafeMutableRawPointer: RawCoroutine] = [:]
        rj_registry_begin_dump()
        // Objects made meanwhile may be registered between the count and the list: again then.
        var objects: [UnsafeMutableRawPointer?] = []
        var total = 0
        repeat {
            objects = [UnsafeMutableRawPointer?](repeating: nil, count: rj_registry_count() + 64)
            total = objects.withUnsafeMutableBufferPointer { rj_registry_list($0.baseAddress!, $0.count) }
        } while total > objects.count
        raws.reserveCapacity(total)
        for case let object? in objects.prefix(total) {
            raws.append(read(object, now: now, delegates: &delegates))
        }
        rj_registry_end_dump()
        // A delegate was read with the generator that delegates to it, which held it.
        for i in raws.indices {
            if let delegate = delegates[raws[i].object] { raws[i] = delegate }
        }
        var names = SymbolCache()
        let coroutines = raws.map { names.coroutine(from: $0, stuckAfter: stuckAfter) }
        return CoroutineDump(coroutines: coroutines, stuckAfter: stuckAfter)
    }

    /// Reads the generator at `object`, which the caller keeps alive (the registry, or a reference).
    fileprivate static func read(_ object: UnsafeMutableRawPointer, now: UInt64,
                                 delegates: inout [UnsafeMutableRawPointer: RawCoroutine]) -> RawCoroutine {
        Unmanaged<_RJCoroutineHost>.fromOpaque(object)._withUnsafeGuaranteedRef { host in
            var raw = RawCoroutine(host, at: object, state: host.machine.current(.acquiring))
            switch raw.state {
            case .running:
                if let current = rj_coro_current(), rj_coro_owner(current) == object {
                    raw.id = rj_coro_id(current)
                    raw.thread = Int(rj_current_thread_id())
                    raw.shared = rj_coro_is_shared(current) != 0
                }
                return raw
            case .created, .completed:
                return raw
            case .suspended:
                break
            }
            rj_dump_hold(object)
            let (held, seen) = host.machine.holdForDump()
            guard held else {
                rj_dump_let_go()
                raw.state = seen
                return raw
            }
            defer {
                host.machine.letGoAfterDump()
                rj_dump_let_go()
            }
            readSuspended(host, into: &raw, now: now)
            // Bodies adopted on its stack, then the delegates of a body suspended in `yieldAll`:
            // suspended in their yields, owned by this one (and so held with it).
            var outer = readAdopted(host, into: &raw, now: now, delegates: &delegates)
            var next = host.delegate
            var hops = 0
            while let delegate = next, hops < 10_000 {
                hops += 1
                next = delegate._withUnsafeGuaranteedRef { inner in
                    var innerRaw = RawCoroutine(inner, at: delegate.toOpaque(), state: .suspended)
                    readSuspended(inner, into: &innerRaw, now: now)
                    innerRaw.delegatedFrom = outer
                    outer = readAdopted(inner, into: &innerRaw, now: now, delegates: &delegates)
                    delegates[delegate.toOpaque()] = innerRaw
                    return inner.delegate
                }
            }
            if host.delegate != nil { raw.waiting = .delegation }
            return raw
        }
    }

    /// The fields of a suspended generator the caller holds.
    private static func readSuspended(_ host: _RJCoroutineHost, into raw: inout RawCoroutine, now: UInt64) {
        raw.waiting = .yield
        guard let coro = host.coro else { return }
        raw.id = rj_coro_id(coro)
        raw.thread = Int(rj_coro_last_thread(coro))
        raw.shared = rj_coro_is_shared(coro) != 0
        var pcs = [UInt](repeating: 0, count: 128)
        let n = pcs.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt.self) { rj_coro_backtrace(coro, $0.baseAddress!, $0.count) }
        }
        raw.pcs = Array(pcs.prefix(n))
        guard host.clientKind == awaitHostClientKind, let client = host.client else { return }
        Unmanaged<_RJAwaitHost>.fromOpaque(client.toOpaque())._withUnsafeGuaranteedRef { awaiting in
            let wait = awaiting.awaitRecord
            guard let kind = AwaitKind(rawValue: wait.kind) else { return }
            raw.waitingFor = Double(now &- Swift.min(now, wait.since)) / 1e9
            switch kind {
            case .callback: raw.waiting = .callback
            case .promise: raw.waiting = .promise
            case .asyncFunction: raw.waiting = .asyncFunction
            case .all: raw.waiting = .all(wait.count)
            case .firstOf: raw.waiting = .firstOf(wait.count)
            case .nextStep: raw.waiting = .nextStep
            case .asyncSequence: raw.waiting = .asyncSequence
            case .timeout:
                let deadline = wait.deadline
                raw.waiting = .timeout(remaining: (Double(deadline) - Double(now)) / 1e9)
            }
        }
    }

    /// The bodies adopted on the stack of `host`, which the caller holds suspended (Adoption.swift):
    /// each is listed as suspended where it is (in `yield` at the top, in `yieldAll` below), with
    /// the generator it runs on, the frames all `host`'s; `raw` gets `host`'s own id (the
    /// coroutine says the top body's). Returns the id of the top body, which a delegate of the
    /// coroutine's is delegated to by.
    private static func readAdopted(_ host: _RJCoroutineHost, into raw: inout RawCoroutine, now: UInt64,
                                    delegates: inout [UnsafeMutableRawPointer: RawCoroutine]) -> UInt64? {
        guard let coro = host.coro, let top = rj_coro_owner(coro), top != host.object else { return raw.id }
        let topId = rj_coro_id(coro)
        var body = top
        var bodyId = topId
        var adopted: [RawCoroutine] = []
        while body != host.object, adopted.count < 1_000_000 {
            let reading = Unmanaged<_RJCoroutineHost>.fromOpaque(body)._withUnsafeGuaranteedRef { adoptedHost -> Adoption? in
                guard let level = adoptedHost.adoption else { return nil }
                var bodyRaw = RawCoroutine(adoptedHost, at: body, state: .suspended)
                bodyRaw.id = bodyId
                bodyRaw.waiting = adopted.isEmpty && host.delegate == nil ? .yield : .delegation
                bodyRaw.shared = raw.shared
                bodyRaw.thread = raw.thread
                adopted.append(bodyRaw)
                return withUnsafeTemporaryAllocation(of: Adoption.self, capacity: 1) { copy in
                    rj_coro_read_frames(coro, level, copy.baseAddress!, MemoryLayout<Adoption>.size) != 0 ? copy[0] : nil
                }
            }
            guard let level = reading else { return topId }
            adopted[adopted.count - 1].delegatedFrom = level.adopterId
            body = level.adopter.toOpaque()
            bodyId = level.adopterId
        }
        raw.id = bodyId
        raw.waiting = .delegation
        for var adoptedRaw in adopted {
            adoptedRaw.runsOnStackOf = bodyId
            delegates[adoptedRaw.object] = adoptedRaw
        }
        return topId
    }

    /// What the `debugDescription`s use (DebugDescription.swift): one generator the caller holds
    /// a reference to, read the same way as in a dump.
    static func inspect(_ host: _RJCoroutineHost) -> CoroutineDump.Coroutine {
        var delegates: [UnsafeMutableRawPointer: RawCoroutine] = [:]
        // One reader at a time: a resume asks whether *the* dump holds its generator.
        rj_registry_begin_dump()
        let raw = read(Unmanaged.passUnretained(host).toOpaque(), now: rj_monotonic_ns(), delegates: &delegates)
        rj_registry_end_dump()
        var names = SymbolCache()
        return names.coroutine(from: raw, stuckAfter: .infinity)
    }

    /// Writes ``dump(stuckAfter:)`` to standard error whenever the process receives `signal`,
    /// without stopping the program; replaces the signal's previous handler. Call it once, early
    /// (docs/debugging.md, "Costs and threads").
    ///
    /// ```swift
    /// RJRuntime.installDumpSignal(SIGUSR1)
    /// // later, from a shell: kill -USR1 <pid>
    /// ```
    public static func installDumpSignal(_ signal: Int32, stuckAfter: Double = 10) {
        if signal == SIGKILL || signal == SIGSTOP || signal <= 0 || signal >= 65 {
            fatalError("RJIterator: installDumpSignal cannot use signal \(signal): it cannot be caught "
                       + "(SIGKILL, SIGSTOP) or is not a signal number; pass one the program does not use, such as SIGUSR1")
        }
        dumpSignalThreshold.store(stuckAfter.bitPattern, ordering: .releasing)
        if rj_dump_signal_install(signal, { rjWriteDumpToStandardError() }) != 0 {
            fatalError(String(cString: rj_last_error()))
        }
    }
}

/// The threshold of the dump signal's dumps (a `Double`'s bits).
private let dumpSignalThreshold = RJAtomic<UInt64>(Double(10).bitPattern)

/// The dump signal's work, on the library's watcher thread; also callable from a debugger
/// (`expr -- (void)rj_dump_to_stderr()`, docs/debugging.md).
@_cdecl("rj_dump_to_stderr")
func rjWriteDumpToStandardError() {
    let threshold = Double(bitPattern: dumpSignalThreshold.load(ordering: .acquiring))
    var text = RJRuntime.dump(stuckAfter: threshold).description
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { break }
            offset += written
        }
    }
}

/// The dump as a C string the caller frees: for debuggers (Tools/lldb/rj_lldb.py calls it in a
/// stopped process), which can read memory but not a Swift `String`.
@_cdecl("rj_dump_text")
func rjDumpText(stuckAfter: Double) -> UnsafeMutablePointer<CChar>? {
    strdup(RJRuntime.dump(stuckAfter: stuckAfter).description)
}

