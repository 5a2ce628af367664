package dev.bufkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * How the jar's native library is found, unpacked and verified (dev.bufkit.NativeLibrary), on
 * both fronts. Every case works in a directory of its own under java.io.tmpdir.
 */
final class NativeLibraryTests {
    /** Each case, in order. */
    @TestFactory
    Stream<DynamicTest> natives() {
        return cases().entrySet().stream().map(c -> DynamicTest.dynamicTest(c.getKey(), c.getValue()::run));
    }

    /** The cases, in order: name to body. */
    static java.util.Map<String, Runnable0> cases() {
        java.util.Map<String, Runnable0> cases = new java.util.LinkedHashMap<>();
        cases.put("natives: loaded from the jar's copy in the cache", NativeLibraryTests::loadedFromTheCache);
        cases.put("natives: platform names", NativeLibraryTests::platformNames);
        cases.put("natives: an unsupported platform names itself and what the jar has", NativeLibraryTests::unsupportedPlatform);
        cases.put("natives: eight threads unpacking at once agree", NativeLibraryTests::concurrentUnpack);
        cases.put("natives: a corrupted cached copy is refused, naming its path", NativeLibraryTests::corruptedCopy);
        cases.put("natives: a cache others can write to is refused", NativeLibraryTests::othersCanWrite);
        cases.put("natives: a symlinked cached copy is refused", NativeLibraryTests::symlinkedCopy);
        cases.put("natives: nothing loadable is one message naming each front", NativeLibraryTests::nothingLoads);
        return cases;
    }

    /** A test body. */
    interface Runnable0 {
        void run() throws Exception;
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private static void loadedFromTheCache() throws IOException {
        Path loaded = NativeLibrary.path();
        String cache = System.getenv("XDG_CACHE_HOME");
        check(cache != null, "the test runner sets XDG_CACHE_HOME to a temporary directory");
        check(loaded.startsWith(Path.of(cache, "bufkit")), "loaded " + loaded + ", not from " + cache);
        check(loaded.getFileName().toString().equals(NativeLibrary.FILE_NAME), "file name " + loaded);
        check(loaded.getParent().getFileName().toString().startsWith(NativeLibrary.runningPlatform() + "-"), "platform folder " + loaded);
        if (POSIX) {
            check(PosixFilePermissions.toString(Files.getPosixFilePermissions(loaded.getParent())).equals("rwx------"), "private directory");
            check(Files.getPosixFilePermissions(loaded).stream().noneMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")),
                    "private file");
        } else {
            Path probe = Files.createTempFile("bufkit-owner", ".tmp");
            try {
                check(Files.getOwner(loaded).equals(Files.getOwner(probe)), "owned by this user: " + Files.getOwner(loaded));
            } finally {
                Files.delete(probe);
            }
        }
    }

    private static void platformNames() {
        check(NativeLibrary.platform("Linux", "amd64", "gnu").equals("linux-x86_64"), "amd64");
        check(NativeLibrary.platform("Linux", "aarch64", "gnu").equals("linux-aarch64"), "aarch64");
        check(NativeLibrary.platform("Linux", "amd64", "musl").equals("linux-musl-x86_64"), "musl");
        check(NativeLibrary.platform("Linux", "aarch64", "musl").equals("linux-musl-aarch64"), "musl aarch64");
        check(NativeLibrary.platform("Windows 11", "amd64", "").equals("windows-x86_64"), "Windows");
        check(NativeLibrary.platform("Windows Server 2022", "amd64", "").equals("windows-x86_64"), "Windows Server");
        check(NativeLibrary.platform("Mac OS X", "aarch64", "").equals("macos-aarch64"), "macOS arm64");
        check(NativeLibrary.platform("Mac OS X", "x86_64", "").equals("macos-x86_64"), "macOS x86-64");
        check(NativeLibrary.platform("FreeBSD", "amd64", "").equals("freebsd-x86_64"), "FreeBSD");
        // The running one: this JDK's C library is glibc here (Debian), and the jar carries its library.
        check(NativeLibrary.runningPlatform().equals(NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"),
                "gnu")), NativeLibrary.runningPlatform());
        check(NativeLibrary.mapsMusl("7f0000-7f1000 r-xp 00000000 08:01 123 /lib/ld-musl-x86_64.so.1"), "musl's loader");
        check(NativeLibrary.mapsMusl("7f0000-7f1000 r-xp 00000000 08:01 123 /usr/lib/libc.musl-aarch64.so.1"), "musl's libc");
        check(!NativeLibrary.mapsMusl("7f0000-7f1000 r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libc.so.6"), "glibc");
        check(!NativeLibrary.mapsMusl("7f0000-7f1000 rw-p 00000000 00:00 0 [heap]"), "anonymous");
        check(NativeLibrary.isAndroid("Dalvik", "The Android Project"), "Android");
        check(!NativeLibrary.isAndroid(System.getProperty("java.vm.name"), System.getProperty("java.vendor")), "this JVM");
    }

    private static void unsupportedPlatform() {
        try {
            NativeLibrary.unpackCarried("linux-riscv64");
            throw new AssertionError("a platform the jar lacks loaded");
        } catch (UnsatisfiedLinkError e) {
            check(e.getMessage().contains("linux-riscv64") && e.getMessage().contains("linux-x86_64")
                    && e.getMessage().contains(NativeLibrary.PATH_PROPERTY), e.getMessage());
        }
    }

    private static byte[] sample() {
        return "not really a shared object, but bytes with a known checksum".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Path freshRoot() throws IOException {
        return Files.createTempDirectory("bufkit-native-test").resolve("bufkit");
    }

    private static void removeTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root.getParent())) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void concurrentUnpack() throws Exception {
        Path root = freshRoot();
        byte[] bytes = sample();
        String sha = NativeLibrary.sha256(bytes);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Path>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(threads.submit(() -> NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha)));
            }
            Path first = results.get(0).get();
            for (Future<Path> r : results) {
                check(r.get().equals(first), "every thread got " + first);
            }
            check(java.util.Arrays.equals(Files.readAllBytes(first), bytes), "the bytes");
            try (Stream<Path> left = Files.list(first.getParent())) {
                check(left.count() == 1, "no temporary files left beside it");
            }
            // A second run finds the intact copy and reuses it.
            check(NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha).equals(first), "reused");
        } finally {
            threads.shutdown();
            removeTree(root);
        }
    }

    private static void corruptedCopy() throws IOException {
        Path root = freshRoot();
        byte[] bytes = sample();
        String sha = NativeLibrary.sha256(bytes);
        try {
            Path file = NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
            Files.write(file, "replaced".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            try {
                NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
                throw new AssertionError("a corrupted copy was accepted");
            } catch (UnsatisfiedLinkError e) {
                check(e.getMessage().contains(file.toString()) && e.getMessage().contains("linux-x86_64")
                        && e.getMessage().contains("corrupted"), e.getMessage());
            }
        } finally {
            removeTree(root);
        }
    }

    private static final boolean POSIX = java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private static void othersCanWrite() throws IOException {
        if (!POSIX) {
            return; // Windows: no permission bits (the owner is checked, see loadedFromTheCache)
        }
        Path root = freshRoot();
        byte[] bytes = sample();
        String sha = NativeLibrary.sha256(bytes);
        try {
            Path file = NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
            Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
            try {
                NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
                throw new AssertionError("a world-writable cache directory was trusted");
            } catch (UnsatisfiedLinkError e) {
                check(e.getMessage().contains(file.getParent().toString()) && e.getMessage().contains("writable by other users"), e.getMessage());
            }
        } finally {
            removeTree(root);
        }
    }

    private static void symlinkedCopy() throws IOException {
        Path root = freshRoot();
        byte[] bytes = sample();
        String sha = NativeLibrary.sha256(bytes);
        try {
            Path file = NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
            Path elsewhere = root.getParent().resolve("elsewhere.so");
            Files.move(file, elsewhere);
            if (Boolean.getBoolean("dev.bufkit.wine")) {
                return; // wine makes the host's symbolic links, which its Windows calls do not show as links
            }
            try {
                Files.createSymbolicLink(file, elsewhere);
            } catch (java.nio.file.FileSystemException e) {
                return; // Windows without the privilege to make links: no link to refuse
            }
            try {
                NativeLibrary.unpack(root, "9.9.9", "linux-x86_64", "libbufkit_java.so", bytes, sha);
                throw new AssertionError("a symlink was followed");
            } catch (UnsatisfiedLinkError e) {
                check(e.getMessage().contains("symbolic link"), e.getMessage());
            }
        } finally {
            removeTree(root);
        }
    }

    /** A second JVM, told to load a library that does not exist: one exception says it all. */
    private static void nothingLoads() throws Exception {
        Path launcher = Path.of(System.getProperty("java.home"), "bin", "java");
        String missing = Path.of("/nonexistent", NativeLibrary.FILE_NAME).toString();
        Process p = new ProcessBuilder(launcher.toString(), "-D" + NativeLibrary.PATH_PROPERTY + "=" + missing,
                "-cp", System.getProperty("dev.bufkit.testClassPath", System.getProperty("java.class.path")), "dev.bufkit.LoadProbe")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        check(p.waitFor() == 3, "exit " + p.exitValue() + ": " + out);
        check(out.contains("dev.bufkit.JniBufkit") && out.contains(missing), out);
        if (Runtime.version().feature() >= 22) {
            check(out.contains("dev.bufkit.PanamaBufkit"), out);
        }
    }
}
