import CRJContext

/// Process-wide settings and statistics of the context layer under every generator. Thread-safe;
/// a setting applies to the generators made afterwards.
///
/// ```swift
/// RJRuntime.defaultStackSize = 64 * 1024   // small bodies, many generators
/// print(RJRuntime.contextBackend)          // "fast (x86_64 sysv)"
/// ```
public enum RJRuntime {
    /// The context-switch backend new generators use: `"fast (x86_64 sysv)"`,
    /// `"fast (arm64 aapcs64)"` or `"ucontext"` (the portable one, chosen at build time with
    /// `-Xcc -DRJ_CONTEXT_UCONTEXT=1`, or on other architectures).
    public static var contextBackend: String {
        String(cString: rj_backend_name(rj_default_backend()))
    }

    /// Whether the assembly backend is compiled into this build.
    public static var fastBackendAvailable: Bool { rj_fast_backend_available() != 0 }

    /// Whether generators made now switch with the inline switch (the fast backend, no sanitizer),
    /// which leaves the floating-point control state to the thread (docs/context-switching.md).
    ///
    /// ```swift
    /// print(RJRuntime.switchesInline)   // true on x86_64 and arm64 by default
    /// ```
    public static var switchesInline: Bool { rj_switches_inline_by_default() != 0 }

    /// Usable stack size, in bytes, of a generator made without `stackSize:` (256 KiB unless
    /// changed; committed lazily). Below ``minimumStackSize`` the program stops with a message.
    ///
    /// ```swift
    /// RJRuntime.defaultStackSize = 64 * 1024   // small bodies, many generators
    /// ```
    public static var defaultStackSize: Int {
        get { Int(rj_default_stack_size()) }
        set {
            checkStackSize(newValue, "RJRuntime.defaultStackSize")
            _ = rj_set_default_stack_size(size_t(newValue))
        }
    }

    /// The one stack-size rule (the C core's): a refused size stops the program with its message
    /// (`fatalError`: an optimised build drops a precondition's message).
    @usableFromInline
    static func checkStackSize(_ size: Int, _ setting: String) {
        if rj_check_stack_size(Int64(size), setting) != 0 { fatalError(String(cString: rj_last_error())) }
    }

    /// The stack mode of the generators made from now on that do not choose one (`rj_async`
    /// bodies and `RJIterator`s included): ``StackMode/dedicated`` unless changed or set by
    /// `RJ_STACK_MODE=shared`. One given a `stackSize` gets a dedicated stack.
    ///
    /// ```swift
    /// RJRuntime.defaultStackMode = .shared   // many suspended generators, a few hundred bytes each
    /// ```
    public static var defaultStackMode: StackMode {
        get { StackMode(rj_default_stack_mode()) }
        set { rj_set_default_stack_mode(newValue.cValue) }
    }

    /// Whether this build can make shared-stack generators (the fast backend); elsewhere their
    /// first `next` throws ``GeneratorError/stackAllocationFailed(_:)``.
    public static var sharedStacksAvailable: Bool { rj_shared_stacks_available() != 0 }

    /// How many run stacks shared-stack generators share (16 unless changed, at most 256), each
    /// of ``defaultStackSize``; more make frames move less often. Changed only while no
    /// shared-stack generator exists (otherwise the program stops with a message).
    ///
    /// ```swift
    /// RJRuntime.sharedRunStackCount = 64   // at the start of the program
    /// ```
    public static var sharedRunStackCount: Int {
        get { Int(rj_shared_run_stack_count()) }
        set {
            guard newValue >= 1, rj_set_shared_run_stack_count(size_t(newValue)) == 0 else {
                if newValue < 1 { _ = rj_set_shared_run_stack_count(0) }
                fatalError(String(cString: rj_last_error()))
            }
        }
    }

    /// Shared-stack generators alive (made and not yet released), and the bytes their saved
    /// frames hold.
    public static var sharedGeneratorCount: Int { Int(rj_stats_shared_coroutines()) }
    public static var sharedSavedBytes: Int { Int(rj_stats_shared_saved_bytes()) }

    /// The smallest `stackSize` a generator accepts (16 KiB).
    public static var minimumStackSize: Int { Int(rj_min_stack_size()) }

    /// Bytes of guard below every stack (64 KiB unless changed, in whole pages; address space,
    /// not memory). A frame larger than the guard could jump over it: raise it for bodies with
    /// very large locals. Applies to stacks mapped afterwards (the pool is emptied).
    ///
    /// ```swift
    /// RJRuntime.guardSize = 256 * 1024   // bodies with very large local buffers
    /// ```
    public static var guardSize: Int {
        get { Int(rj_guard_size()) }
        set {
            if !(newValue > 0) { fatalError("RJIterator: guardSize must be positive, got \(newValue)") }
            rj_set_guard_size(size_t(newValue))
        }
    }

    /// The sanitizer the C core was built with and annotates every switch for: `"address"`,
    /// `"thread"`, or `nil`.
    ///
    /// ```swift
    /// if RJRuntime.sanitizer == "thread" { print("running under ThreadSanitizer") }
    /// ```
    public static var sanitizer: String? {
        let name = String(cString: rj_sanitizer())
        return name.isEmpty ? nil : name
    }

    /// How many freed default-size stacks are kept for reuse (64 unless changed).
    public static var stackPoolLimit: Int {
        get { Int(rj_stack_pool_limit()) }
        set {
            if !(newValue >= 0) { fatalError("RJIterator: stackPoolLimit must not be negative, got \(newValue)") }
            rj_set_stack_pool_limit(size_t(newValue))
        }
    }

    /// How many pooled stacks keep their memory (64 unless changed): the most recently freed,
    /// handed out first; the others give their pages back. Lower it to bound the pool's memory.
    ///
    /// ```swift
    /// RJRuntime.stackPoolResidentLimit = 8   // a memory-tight program
    /// ```
    public static var stackPoolResidentLimit: Int {
        get { Int(rj_stack_pool_resident_limit()) }
        set {
            if !(newValue >= 0) { fatalError("RJIterator: stackPoolResidentLimit must not be negative, got \(newValue)") }
            rj_set_stack_pool_resident_limit(size_t(newValue))
        }
    }

    /// Unmaps every pooled stack.
    public static func drainStackPool() { rj_stack_pool_drain() }

    /// Stacks currently held by generators (started and not yet finished or released).
    public static var liveStackCount: Int { Int(rj_stats_live_stacks()) }

    /// Stacks waiting in the pool.
    public static var pooledStackCount: Int { Int(rj_stats_pooled_stacks()) }

    /// Stacks mapped in all (live and pooled).
    public static var mappedStackCount: Int { Int(rj_stats_mapped_stacks()) }

    /// Whether guards are `MADV_GUARD_INSTALL` markers (Linux 6.13+) rather than `mprotect`.
    public static var guardUsesMadvise: Bool { rj_guard_uses_madvise() != 0 }

    /// Makes generators created from now on use the portable `ucontext` backend (`true`) or the
    /// build's default (`false`), to compare the two in one process.
    ///
    /// ```swift
    /// RJRuntime.useUContextBackend(true)
    /// let slow = Generator<Int, Void, Void> { y in try y.yield(1) }   // switches with swapcontext
    /// RJRuntime.useUContextBackend(false)
    /// ```
    public static func useUContextBackend(_ on: Bool) {
        rj_set_default_backend(on ? RJ_BACKEND_UCONTEXT : RJ_BACKEND_FAST)
    }
}
