import CRJContext

// The dump's seam: what `RJRuntime.dump()` reads of a coroutine beyond its state and stack
// (docs/swift-core.md, "What a dump reads"). The hot paths never read these.

/// What a dump reports a coroutine as: the API it was made with.
@usableFromInline
enum DumpKind: UInt8 {
    case generator, rjIterator, rjAsync, asyncGenerator
}

/// What a coroutine says of itself for dumps and messages, set when it is made. Its last field
/// is a byte, so the generator's small fields after it fill the padding at its end.
@usableFromInline
struct CoroutineRecord {
    /// Where the public initialiser's caller is (`#fileID`, `#line`), in one word: the file's
    /// static string in the low 48 bits (a user-space address), the line in the high 16 (0: a
    /// line past 65,535, or none). One word so that a `Yielder` carries it too: the misuse
    /// message names the generator even after the generator is gone.
    @usableFromInline let site: UInt64
    /// This coroutine's slot in the registry of live generators (rj_registry.c).
    @usableFromInline var registryHandle: UInt32 = .max
    @usableFromInline let kind: DumpKind

    @inlinable
    init(kind: DumpKind, file: StaticString, line: UInt) {
        let path = file.hasPointerRepresentation ? UInt64(UInt(bitPattern: file.utf8Start)) : 0
        site = path | (line < 1 << 16 ? UInt64(line) << 48 : 0)
        self.kind = kind
    }

    /// `#fileID` of the public initialiser's caller.
    @usableFromInline var file: UnsafePointer<UInt8>? { Self.file(of: site) }
    /// Its `#line`, 0 when unknown.
    @usableFromInline var line: UInt32 { UInt32(truncatingIfNeeded: site >> 48) }

    @usableFromInline static func file(of site: UInt64) -> UnsafePointer<UInt8>? {
        UnsafePointer(bitPattern: UInt(truncatingIfNeeded: site & (1 << 48 - 1)))
    }

    /// A packed site as messages write it: `Demo/main.swift:12`.
    @usableFromInline
    static func text(of site: UInt64) -> String {
        "\(file(of: site).map { String(cString: $0) } ?? "?"):\(site >> 48 == 0 ? "?" : String(site >> 48))"
    }

    /// Enters the registry that dumps read; `object` is the generator, unretained.
    @inlinable
    mutating func register(_ object: UnsafeMutableRawPointer) {
        registryHandle = rj_registry_add(object)
    }

    /// Where the generator was made, for messages: `Demo/main.swift:12`.
    @usableFromInline
    var siteText: String { Self.text(of: site) }

    /// Its body, as messages name it: `the body of the Generator made at Demo/main.swift:12`.
    @usableFromInline
    var bodyText: String {
        switch kind {
        case .generator: return "the body of the Generator made at \(siteText)"
        case .rjIterator: return "the body of the RJIterator made at \(siteText)"
        case .rjAsync: return "the rj_async body made at \(siteText)"
        case .asyncGenerator: return "the body of the AsyncGenerator made at \(siteText)"
        }
    }

    /// What made it, as messages name it.
    @usableFromInline
    var kindName: String {
        switch kind {
        case .generator: return "generator"
        case .rjIterator: return "RJIterator"
        case .rjAsync: return "rj_async body"
        case .asyncGenerator: return "AsyncGenerator"
        }
    }

    /// How its user closes it before releasing it, for messages.
    @usableFromInline
    var howToClose: String {
        kind == .asyncGenerator ? "try await gen.return(...)" : "try gen.close()"
    }

    /// Leaves the registry before the generator's body is closed on release (the first thing
    /// of `Generator.deinit`, and of an `AsyncGenerator`'s, which closes its core itself), so
    /// that a dump, which holds the registry while it reads, never reads a generator that is
    /// being closed: a removal waits for a dump in progress. Once: a second call does nothing.
    @inlinable
    mutating func unregister() {
        rj_registry_remove(registryHandle)
        registryHandle = .max
    }
}

/// What an `rj_await` waits on, as a dump reports it.
@usableFromInline
enum AwaitKind: UInt8 {
    case callback = 1, promise, timeout, asyncFunction, all, firstOf
    /// `rj_await(nextOf:)` of an async generator, and `yieldAll` of one.
    case nextStep
    /// `rj_awaitValue(nextOf:)` of an `AsyncSequence`'s iterator, and `yieldAll` of one.
    case asyncSequence
}

/// What an await host's body waits on, for a dump: part of the host's `AwaitState`, noted when
/// an await begins and cleared when it ends, under the host's lock; the dump reads a copy taken
/// under that lock (`_RJAwaitHost.awaitRecord`).
@usableFromInline
struct AwaitRecord {
    /// The kind of the await (`AwaitKind`), 0 when none is in progress.
    @usableFromInline var kind: UInt8 = 0
    /// How many pieces of work an `rj_await(all:)` or `rj_await(firstOf:)` waits for.
    @usableFromInline var count = 0
    /// When the body suspended (`rj_monotonic_ns`), and a timeout's deadline (0: none).
    @usableFromInline var since: UInt64 = 0
    @usableFromInline var deadline: UInt64 = 0

    @inlinable init() {}

    /// Says what the coming await waits on; the outermost call says it (`rj_await(all:)` is an
    /// `rj_await` of one callback inside).
    @usableFromInline
    mutating func note(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil) {
        if self.kind != 0 { return }
        self.kind = kind.rawValue
        self.count = count
        deadline = timeout.map { rj_monotonic_ns() &+ UInt64(max(0, min($0, 1e9)) * 1e9) } ?? 0
    }

    /// Stamps the start of a suspension (the await did not complete at once).
    @usableFromInline
    mutating func began() {
        since = rj_monotonic_ns()
    }

    /// The await is over: it completed at once or the body was resumed.
    @usableFromInline
    mutating func ended() {
        kind = 0
        deadline = 0
    }
}
