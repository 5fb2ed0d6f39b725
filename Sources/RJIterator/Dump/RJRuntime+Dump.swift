import CRJContext
import RJLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// How a dump reads the coroutines (users' side: docs/debugging.md; fields: docs/swift-core.md, "What a dump reads"):
// - Every generator object is in a registry (rj_registry.c) from its initialiser to the first
//   line of its `deinit`; while a dump is announced, an object whose last reference goes waits
//   in its `deinit`, so no object read here is freed.
// - A suspended generator is *held* while its stack is read (`holdForDump`: the compare-exchange
//   a resume uses, which also orders what the body's thread wrote before these reads);
//   `rj_dump_hold` tells a resume that finds it `running` to wait a moment.
// - Fields of a generator that runs on another thread are not read (that thread writes them).
// - Names are looked up after the registry is let go: reading symbol tables takes time.

/// What was read of one generator while the registry was held.
private struct RawCoroutine {
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
    var pcs: [UInt] = []
}

extension RJRuntime {
    /// A snapshot of every live `Generator`, `RJIterator`, `rj_async` task and `AsyncGenerator`:
    /// kind, state, where it was made, what it waits on and, if suspended, where. Print it for the
    /// text, or read its values. Any thread may take one, also from inside a body; what it costs
    /// the program meanwhile: docs/debugging.md ("Costs").
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
            // A body suspended in `yieldAll`: its delegates are suspended in their yields,
            // owned by this one (and so held with it).
            var outer = raw.id
            var next = host.delegate
            var hops = 0
            while let delegate = next, hops < 10_000 {
                hops += 1
                next = delegate._withUnsafeGuaranteedRef { inner in
                    var innerRaw = RawCoroutine(inner, at: delegate.toOpaque(), state: .suspended)
                    readSuspended(inner, into: &innerRaw, now: now)
                    innerRaw.delegatedFrom = outer
                    outer = innerRaw.id
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
    /// (docs/debugging.md, "Threads and signals").
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

@_silgen_name("swift_demangle")
private func _swiftDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                            _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// Names of return addresses, looked up once per address of a dump.
private struct SymbolCache {
    var frames: [UInt: CoroutineDump.Frame] = [:]
    /// Per return address: 0, a frame of the body; 1, the library's; 2, a compiler thunk.
    var roles: [UInt: UInt8] = [:]

    /// What the frame at `pc` is (see `roles`), decided once per address of a dump.
    mutating func role(_ pc: UInt, first: Bool) -> (CoroutineDump.Frame, UInt8) {
        let f = frame(pc, first: first)
        if let known = roles[pc] { return (f, known) }
        let role: UInt8
        if ["partial apply forwarder for ", "reabstraction thunk", "thunk for "].contains(where: { f.symbol?.hasPrefix($0) ?? false }) {
            role = 2
        } else {
            role = SymbolCache.isMachinery(f) ? 1 : 0
        }
        roles[pc] = role
        return (f, role)
    }

    mutating func frame(_ pc: UInt, first: Bool) -> CoroutineDump.Frame {
        // A return address is the instruction after the call: look up the call itself.
        let lookup = first ? pc : pc &- 1
        if let known = frames[lookup] { return known }
        var name = [CChar](repeating: 0, count: 1024)
        var image = [CChar](repeating: 0, count: 256)
        var offset: UInt = 0
        let found = name.withUnsafeMutableBufferPointer { n in
            image.withUnsafeMutableBufferPointer { i in
                rj_symbolize(lookup, n.baseAddress!, n.count, &offset, i.baseAddress!, i.count)
            }
        }
        let imageName = image.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var symbol: String?
        if found != 0 {
            let mangled = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            symbol = demangle(mangled) ?? mangled
        }
        let frame = CoroutineDump.Frame(address: pc, symbol: symbol, offset: first ? offset : offset &+ 1, image: imageName)
        frames[lookup] = frame
        return frame
    }

    func demangle(_ mangled: String) -> String? {
        guard mangled.hasPrefix("$s") || mangled.hasPrefix("_T") || mangled.hasPrefix("$S") else { return nil }
        guard let out = mangled.withCString({ _swiftDemangle($0, strlen($0), nil, nil, 0) }) else { return nil }
        defer { free(out) }
        return String(cString: out)
    }

    /// Whether a frame is the library's machinery around a body, which the dump leaves out: a C core
    /// function, or one whose innermost named context is in the `RJIterator` module (a closure counts
    /// as its function; specialised library code lives in the caller's image but keeps its name).
    static func isMachinery(_ frame: CoroutineDump.Frame) -> Bool {
        guard var symbol = frame.symbol else { return false }
        // The C core's functions (a Swift name has a module and a dot).
        if symbol.hasPrefix("rj_") && !symbol.contains(".") { return true }
        for prefix in ["partial apply forwarder for ", "@objc ", "merged ", "static ", "reabstraction thunk helper ",
                       "variable initialization expression of "] where symbol.hasPrefix(prefix) {
            symbol.removeFirst(prefix.count)
        }
        if symbol.hasPrefix("generic specialization <"), let of = symbol.range(of: "> of ") {
            symbol = String(symbol[of.upperBound...])
        }
        if symbol.hasPrefix("closure #") || symbol.hasPrefix("implicit closure #") {
            // The function the closure is in: after the last " in ".
            guard let last = symbol.range(of: " in ", options: .backwards) else { return false }
            symbol = String(symbol[last.upperBound...])
            for prefix in ["static ", "variable initialization expression of "] where symbol.hasPrefix(prefix) {
                symbol.removeFirst(prefix.count)
            }
        }
        return symbol.hasPrefix("RJIterator.") || symbol.hasPrefix("(extension in RJIterator)")
    }

    mutating func coroutine(from raw: RawCoroutine, stuckAfter: Double) -> CoroutineDump.Coroutine {
        // Compiler-made thunks around a closure say nothing the closure's frame does not; the
        // library's frames above the body's (the yield path) and below them (the entry) go.
        var roled = raw.pcs.enumerated().map { role($0.element, first: $0.offset == 0) }.filter { $0.1 != 2 }
        while let first = roled.first, first.1 == 1 { roled.removeFirst() }
        while let last = roled.last, last.1 == 1 || last.0.symbol == nil { roled.removeLast() }
        let frames = roled.map(\.0)
        let awaiting: Bool
        switch raw.waiting {
        case .none, .yield?, .delegation?: awaiting = false
        default: awaiting = true
        }
        var stuck = raw.state == .suspended && awaiting && (raw.waitingFor ?? 0) >= stuckAfter
        if case .timeout(let remaining)? = raw.waiting, remaining >= 0 { stuck = false }
        let kind: CoroutineDump.Coroutine.Kind
        switch raw.kind {
        case .generator: kind = .generator
        case .rjIterator: kind = .rjIterator
        case .rjAsync: kind = .rjAsyncTask
        case .asyncGenerator: kind = .asyncGenerator
        }
        return CoroutineDump.Coroutine(
            id: raw.id, kind: kind, state: raw.state, file: raw.file, line: raw.line,
            stackMode: raw.shared.map { $0 ? .shared : .dedicated }, thread: raw.thread,
            waiting: raw.state == .suspended ? raw.waiting : nil, delegatedFrom: raw.delegatedFrom,
            waitingFor: awaiting ? raw.waitingFor : nil, frames: frames, isStuck: stuck)
    }
}
