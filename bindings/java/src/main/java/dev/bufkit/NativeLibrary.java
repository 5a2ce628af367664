package dev.bufkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds the one native library both fronts load, {@code bufkit_java} ({@code libbufkit_java.so},
 * {@code bufkit_java.dll} or {@code libbufkit_java.dylib}), which holds bufkit's C ABI
 * ({@code bk_*}) and the JNI glue ({@code Java_*}).
 *
 * <p>Where it comes from, in order:
 * <ol>
 *   <li>the system property {@value #PATH_PROPERTY}: a path to the library (for the Panama front the
 *       C distribution's {@code libbufkit} also works);
 *   <li>on Android, the app's own native libraries: {@code System.loadLibrary("bufkit_java")}; the
 *       jar's copies are not used and nothing is unpacked;
 *   <li>the copy this jar carries for the running platform, unpacked at first use into a cache
 *       directory, one directory per version and checksum. The platform is the OS, the architecture
 *       and on Linux the C library: {@code linux-x86_64}, {@code linux-aarch64} (glibc),
 *       {@code linux-musl-x86_64}, {@code linux-musl-aarch64} (Alpine), {@code windows-x86_64},
 *       {@code macos-x86_64}, {@code macos-aarch64}. The cache is {@code $XDG_CACHE_HOME/bufkit} when
 *       that is set, else {@code ~/.cache/bufkit} on Linux, {@code ~/Library/Caches/bufkit} on
 *       macOS, {@code %LOCALAPPDATA%\bufkit} on Windows; else {@code java.io.tmpdir/bufkit-USER}.
 * </ol>
 *
 * <p>The cache is safe to share between processes that start at once: each writes a private
 * temporary file and renames it into place. Before every load, the file's SHA-256 is checked
 * against the jar's index, and so are its owner and, where the file system has POSIX permissions,
 * those of the directories above it up to the cache root: a file another user could have replaced
 * is never loaded. On Windows the owner is checked and the access lists are those the user's
 * profile gives. A corrupted or replaced cached copy is an {@link UnsatisfiedLinkError} naming the
 * path.
 */
public final class NativeLibrary {
    /** The system property that names the library to load instead of the jar's own copy. */
    public static final String PATH_PROPERTY = "dev.bufkit.library";
    /** The library's name, as {@link System#loadLibrary} takes it. */
    public static final String NAME = "bufkit_java";
    /** The library's file name on the running platform, in the jar and in the cache. */
    public static final String FILE_NAME = System.mapLibraryName(NAME);
    static final String RESOURCES = "/dev/bufkit/native/";
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    private static Path resolved;
    private static boolean loaded;

    private NativeLibrary() {}

    /**
     * Loads the library for the JNI front: {@link System#load} of {@link #path()}, or on Android
     * (without {@value #PATH_PROPERTY}) {@code System.loadLibrary("bufkit_java")}.
     *
     * @throws UnsatisfiedLinkError when no library can be had; the message says why and what to do
     */
    public static synchronized void loadForJni() {
        if (loaded) {
            return;
        }
        if (System.getProperty(PATH_PROPERTY) == null && isAndroid(System.getProperty("java.vm.name"), System.getProperty("java.vendor"))) {
            try {
                System.loadLibrary(NAME);
            } catch (UnsatisfiedLinkError e) {
                throw linkError("on Android bufkit loads lib" + NAME + ".so from the app's own native libraries (jniLibs/ABI/); it is not there", e);
            }
        } else {
            System.load(path().toString());
        }
        loaded = true;
    }

    /**
     * The path of the library to load, unpacking the jar's copy on first use.
     *
     * @throws UnsatisfiedLinkError when no library can be had; the message says why and what to do
     */
    public static synchronized Path path() {
        if (resolved == null) {
            String explicit = System.getProperty(PATH_PROPERTY);
            resolved = explicit != null ? Path.of(explicit) : unpackCarried(runningPlatform());
        }
        return resolved;
    }

    /** The running platform's folder in the jar, e.g. {@code linux-musl-aarch64}. */
    static String runningPlatform() {
        String os = System.getProperty("os.name");
        return platform(os, System.getProperty("os.arch"), os.toLowerCase(Locale.ROOT).startsWith("linux") ? linuxLibc() : "");
    }

    /**
     * The platform folder for an {@code os.name}, {@code os.arch} and C library ({@code musl}, or
     * anything else for the platform's usual one), e.g. {@code linux-x86_64},
     * {@code linux-musl-aarch64}, {@code windows-x86_64}, {@code macos-aarch64}.
     */
    static String platform(String osName, String osArch, String libc) {
        String name = osName.toLowerCase(Locale.ROOT);
        String os;
        if (name.startsWith("linux")) {
            os = "musl".equals(libc) ? "linux-musl" : "linux";
        } else if (name.startsWith("windows")) {
            os = "windows";
        } else if (name.startsWith("mac") || name.startsWith("darwin")) {
            os = "macos";
        } else {
            os = name.replace(' ', '-');
        }
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64", "x86-64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> osArch.toLowerCase(Locale.ROOT);
        };
        return os + "-" + arch;
    }

    /**
     * The running Linux process's C library: {@code musl} when musl's loader or libc is mapped into
     * it (Alpine), else {@code gnu}.
     */
    static String linuxLibc() {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.anyMatch(NativeLibrary::mapsMusl) ? "musl" : "gnu";
        } catch (IOException | RuntimeException e) {
            return "gnu";
        }
    }

    /** Whether a line of {@code /proc/self/maps} maps musl's loader or C library. */
    static boolean mapsMusl(String line) {
        int slash = line.lastIndexOf('/');
        String file = slash < 0 ? "" : line.substring(slash + 1);
        return file.startsWith("ld-musl-") || file.startsWith("libc.musl-");
    }

    /** Whether the runtime is Android's (ART, which still names itself Dalvik). */
    static boolean isAndroid(String vmName, String vendor) {
        return "Dalvik".equalsIgnoreCase(vmName) || (vendor != null && vendor.contains("Android"));
    }

    /** The jar's library for {@code platform}, unpacked into the first usable cache directory. */
    static Path unpackCarried(String platform) {
        Properties index = new Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + "index.properties")) {
            if (in == null) {
                throw new UnsatisfiedLinkError("this bufkit jar carries no native libraries (no " + RESOURCES
                        + "index.properties); set -D" + PATH_PROPERTY + "=/path/to/" + FILE_NAME);
            }
            index.load(in);
        } catch (IOException e) {
            throw linkError("reading the jar's native index failed", e);
        }
        String sha256 = index.getProperty(platform + ".sha256");
        String file = index.getProperty(platform + ".file");
        if (sha256 == null || file == null) {
            throw new UnsatisfiedLinkError("bufkit has no native library for platform " + platform + " in this jar (it carries: "
                    + index.getProperty("platforms", "none") + "); build one with bindings/java/build.sh and set -D"
                    + PATH_PROPERTY + "=/path/to/" + FILE_NAME);
        }
        byte[] carried;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + platform + "/" + file)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("the jar's index lists " + platform + " but " + RESOURCES + platform + "/" + file + " is missing");
            }
            carried = in.readAllBytes();
        } catch (IOException e) {
            throw linkError("reading the native library for " + platform + " from the jar failed", e);
        }
        if (!sha256(carried).equals(sha256)) {
            throw new UnsatisfiedLinkError("the jar's native library for " + platform + " does not match its checksum: the jar is corrupted");
        }
        String version = index.getProperty("version", "unknown");
        List<String> failures = new ArrayList<>();
        for (Path root : cacheRoots()) {
            try {
                return unpack(root, version, platform, file, carried, sha256);
            } catch (IOException | UnsupportedOperationException e) {
                failures.add(root + ": " + e);
            }
        }
        throw new UnsatisfiedLinkError("could not unpack bufkit's native library for " + platform + " into any cache directory ("
                + String.join("; ", failures) + "); set XDG_CACHE_HOME to a writable directory or -D" + PATH_PROPERTY + "=/path/to/" + FILE_NAME);
    }

    /** Where the cache may live, most preferred first. */
    private static List<Path> cacheRoots() {
        List<Path> roots = new ArrayList<>();
        String xdg = System.getenv("XDG_CACHE_HOME");
        String localAppData = System.getenv("LOCALAPPDATA");
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        Path home = Path.of(System.getProperty("user.home"));
        if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()) {
            roots.add(Path.of(xdg, "bufkit"));
        } else if (os.startsWith("windows") && localAppData != null && Path.of(localAppData).isAbsolute()) {
            roots.add(Path.of(localAppData, "bufkit"));
        } else if (os.startsWith("mac")) {
            roots.add(home.resolve("Library").resolve("Caches").resolve("bufkit"));
        } else {
            roots.add(home.resolve(".cache").resolve("bufkit"));
        }
        roots.add(Path.of(System.getProperty("java.io.tmpdir"), "bufkit-" + System.getProperty("user.name")));
        return roots;
    }

    /**
     * Puts {@code bytes} at {@code root/version/platform-sha/fileName} unless an intact copy is
     * there, and returns its path once verified.
     *
     * @throws UnsatisfiedLinkError when a copy is there but is not intact, or is not safely owned
     * @throws IOException when the cache cannot be written
     */
    static Path unpack(Path root, String version, String platform, String fileName, byte[] bytes, String sha256) throws IOException {
        Path dir = root.resolve(version).resolve(platform + "-" + sha256.substring(0, 16));
        Path file = dir.resolve(fileName);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            for (Path d : List.of(root, root.resolve(version), dir)) {
                privateDirectory(d);
            }
            Path temporary = Files.createTempFile(dir, "." + fileName + ".", ".tmp", ownerOnly(OWNER_ONLY_FILE));
            try {
                try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                    ByteBuffer data = ByteBuffer.wrap(bytes);
                    while (data.hasRemaining()) {
                        out.write(data);
                    }
                    out.force(true);
                }
                try {
                    // rename(2): a concurrent process that got there first had the same bytes.
                    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    // Windows refuses to replace a library another process has loaded: its copy
                    // is checked below like any other.
                    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                        throw e;
                    }
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
        verify(root, dir, file, platform, sha256);
        return file;
    }

    /**
     * Checks that {@code file} is safe to load: a regular file whose checksum matches, owned by this
     * user (and where permissions are POSIX, writable by nobody else), in directories that are the
     * same up to {@code root}.
     */
    static void verify(Path root, Path dir, Path file, String platform, String sha256) throws IOException {
        for (Path d = dir; d != null && d.startsWith(root); d = d.getParent()) {
            checkOwnedAndPrivate(d, "directory", platform);
        }
        checkOwnedAndPrivate(file, "file", platform);
        String found = sha256(Files.readAllBytes(file));
        if (!found.equals(sha256)) {
            throw new UnsatisfiedLinkError("the cached bufkit native library for " + platform + " at " + file
                    + " is corrupted or was replaced (SHA-256 " + found + ", expected " + sha256 + "); delete it and it is unpacked again");
        }
    }

    private static void checkOwnedAndPrivate(Path p, String what, String platform) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink() || attributes.isOther()) {
            throw new UnsatisfiedLinkError("refusing to load bufkit's native library for " + platform + ": the cache " + what + " " + p
                    + " is a symbolic link or another kind of link");
        }
        if (!POSIX) {
            UserPrincipal owner = Files.getOwner(p, LinkOption.NOFOLLOW_LINKS);
            UserPrincipal self = currentOwner();
            if (!owner.equals(self)) {
                throw new UnsatisfiedLinkError("refusing to load bufkit's native library for " + platform + ": the cache " + what + " " + p
                        + " belongs to " + owner.getName() + ", not to this user (" + self.getName() + ")");
            }
            return;
        }
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != currentUid()) {
            throw new UnsatisfiedLinkError("refusing to load bufkit's native library for " + platform + ": the cache " + what + " " + p
                    + " belongs to uid " + owner + ", not to this user");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new UnsatisfiedLinkError("refusing to load bufkit's native library for " + platform + ": the cache " + what + " " + p
                    + " is writable by other users (" + PosixFilePermissions.toString(perms) + ")");
        }
    }

    /** Creates {@code dir} owner-only, or checks that an existing one is this user's alone. */
    private static void privateDirectory(Path dir) throws IOException {
        try {
            Files.createDirectories(dir.getParent());
            Files.createDirectory(dir, ownerOnly(OWNER_ONLY_DIR));
        } catch (FileAlreadyExistsException e) {
            // checked by verify() with the rest of the chain
        }
    }

    /** The attribute that makes a new file or directory owner-only, where permissions are POSIX. */
    private static FileAttribute<?>[] ownerOnly(Set<PosixFilePermission> perms) {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)} : new FileAttribute<?>[0];
    }

    private static Integer uid;

    private static synchronized int currentUid() throws IOException {
        if (uid == null) {
            Path self = Path.of("/proc/self");
            if (Files.isDirectory(self)) {
                // Linux: /proc/self belongs to the process's effective uid.
                uid = (Integer) Files.getAttribute(self, "unix:uid");
            } else {
                // Elsewhere (macOS): the owner of a file this process makes.
                Path probe = Files.createTempFile("bufkit-uid", ".tmp", ownerOnly(OWNER_ONLY_FILE));
                try {
                    uid = (Integer) Files.getAttribute(probe, "unix:uid");
                } finally {
                    Files.deleteIfExists(probe);
                }
            }
        }
        return uid;
    }

    private static UserPrincipal owner;

    /** The owner this process gives the files it makes (Windows: the user, or Administrators). */
    private static synchronized UserPrincipal currentOwner() throws IOException {
        if (owner == null) {
            Path probe = Files.createTempFile("bufkit-owner", ".tmp");
            try {
                owner = Files.getOwner(probe);
            } finally {
                Files.deleteIfExists(probe);
            }
        }
        return owner;
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(message + ": " + cause);
        error.initCause(cause);
        return error;
    }
}
