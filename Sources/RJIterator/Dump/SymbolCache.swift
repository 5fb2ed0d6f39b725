import CRJContext

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The names of a dump's frames, looked up after the registry is let go.

@_silgen_name("swift_demangle")
func _swiftDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                            _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// Names of return addresses, looked up once per address of a dump.
struct SymbolCache {
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
        // library's frames go: above the body's (the yield path), below them (the entry), and
        // between the bodies adopted on this stack (an adoption's, with the standard library's
        // frames it calls the body through).
        var roled = raw.pcs.enumerated().map { role($0.element, first: $0.offset == 0) }.filter { $0.1 != 2 }
        while let last = roled.last, last.0.symbol == nil { roled.removeLast() }
        for i in roled.indices where roled[i].1 == 0 && (roled[i].0.symbol?.hasPrefix("Swift.") ?? false)
            && i > 0 && roled[i - 1].1 == 1 && i + 1 < roled.count && roled[i + 1].1 == 1 {
            roled[i].1 = 1
        }
        let frames = roled.filter { $0.1 != 1 }.map(\.0)
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
            runsOnStackOf: raw.runsOnStackOf, waitingFor: awaiting ? raw.waitingFor : nil, frames: frames, isStuck: stuck)
    }
}
