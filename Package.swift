// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RJIterator",
    // Apple platforms use RJLocks' portable lock and atomics (Synchronization needs macOS 15 / iOS 18).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "RJIterator", targets: ["RJIterator"]),
        .library(name: "RJPromises", targets: ["RJPromises"]),
        .library(name: "RJNodes", targets: ["RJNodes"]),
        .library(name: "RJBridges", targets: ["RJBridges"]),
    ],
    targets: [
        // Stacks and context switches: the only code that knows about registers.
        .target(name: "CRJContext", path: "Sources/CRJContext"),
        // Runtime entry points and sanitizer annotations, declared in C.
        .target(name: "CRJShims", path: "Sources/CRJShims"),
        // The package's one lock type, which sanitizers understand; under every Swift module.
        // RJ_NO_SYNCHRONIZATION: the portable lock and atomics, for the Apple versions below
        // macOS 15 / iOS 18 that the package supports (CI also builds Linux with it).
        .target(name: "RJLocks", dependencies: ["CRJShims"], path: "Sources/RJLocks",
                swiftSettings: [.define("RJ_NO_SYNCHRONIZATION", .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS]))]),
        // Reactive nodes (EasyReact's model): stand-alone but for one runtime call in C.
        .target(name: "RJNodes", dependencies: ["CRJShims", "RJLocks"], path: "Sources/RJNodes"),
        // Promises: stand-alone (Dispatch only).
        .target(name: "RJPromises", dependencies: ["RJLocks"], path: "Sources/RJPromises"),
        // Generators (typed and seed-compatible) on top of the C core, and rj_async/rj_await
        // on top of generators; only the Async folder uses RJPromises (rj_await accepts them).
        .target(name: "RJIterator", dependencies: ["CRJContext", "CRJShims", "RJPromises", "RJLocks"], path: "Sources/RJIterator"),
        // Bridges between the parts (a node's value as a promise, rj_await of a node), so that
        // the parts themselves depend on nothing new.
        .target(name: "RJBridges", dependencies: ["RJNodes", "RJPromises", "RJIterator"], path: "Sources/RJBridges"),
        // The benchmark, one file per area (Benchmarks/bench/<Area>/), and its floor: bare
        // switches in C, benchmark code that no library target links.
        .executableTarget(name: "bench", dependencies: ["RJIterator", "CRJContext", "CRJBenchFloor", "RJPromises", "RJNodes"],
                          path: "Benchmarks/bench"),
        .target(name: "CRJBenchFloor", dependencies: ["CRJContext"], path: "Benchmarks/CRJBenchFloor"),
        // The seed's login example, with callbacks and with rj_async/rj_await: `swift run demo login`.
        .executableTarget(name: "demo", dependencies: ["RJIterator"], path: "Examples/demo"),
        // A tiny program the tests run in a child process, for behaviour that ends a process
        // (stack overflow, a body error in for-in) or writes to stderr.
        .executableTarget(name: "rj-probe", dependencies: ["RJIterator", "RJNodes", "RJPromises", "CRJContext", "RJProbeSupport"],
                          path: "Tests/RJProbe"),
        .target(name: "RJProbeSupport", path: "Tests/RJProbeSupport"),
        .testTarget(name: "RJLocksTests", dependencies: ["RJLocks"], path: "Tests/RJLocksTests"),
        .testTarget(name: "RJNodesTests", dependencies: ["RJNodes", "RJBridges", "RJPromises", "RJIterator"],
                    path: "Tests/RJNodesTests"),
        .testTarget(name: "RJPromisesTests", dependencies: ["RJPromises"], path: "Tests/RJPromisesTests"),
        .testTarget(name: "RJIteratorTests", dependencies: ["RJIterator", "RJPromises", "CRJContext", "rj-probe"],
                    path: "Tests/RJIteratorTests"),
    ],
    swiftLanguageModes: [.v6]
)
