package dev.bufkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Finds the one native library both fronts load: {@code libbufkit_java.so}, which holds bufkit's C
 * ABI ({@code bk_*}) and the JNI glue ({@code Java_*}).
 *
 * <p>Where it comes from, in order:
 * <ol>
 *   <li>the system property {@value #PATH_PROPERTY}: a path to the library (for the Panama front a
 *       plain {@code libbufkit.so} of the C distribution also works);
 *   <li>the copy this jar carries for the running platform (e.g. {@code linux-x86_64}), unpacked at
 *       first use into {@code $XDG_CACHE_HOME/bufkit} (else {@code ~/.cache/bufkit}, else
 *       {@code java.io.tmpdir/bufkit-USER}), one directory per version and checksum.
 * </ol>
 *
 * <p>The cache is safe to share between processes that start at once: each writes a private
 * temporary file and renames it into place. Before every load, the file's SHA-256 is checked
 * against the jar's index and its owner and permissions are checked, as are those of the
 * directories above it up to the cache root: a file another user could have replaced is never
 * loaded. A corrupted or replaced cached copy is an {@link UnsatisfiedLinkError} naming the path.
 */
public final class NativeLibrary {
    /** The system property that names the library to load instead of the jar's own copy. */
    public static final String PATH_PROPERTY = "dev.bufkit.library";
    /** The library's file name, in the jar and in the cache. */
    public static final String FILE_NAME = "libbufkit_java.so";
    static final String RESOURCES = "/dev/bufkit/native/";
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    private static Path resolved;

    private NativeLibrary() {}

    /**
     * The path of the library to load, unpacking the jar's copy on first use.
     *
     * @throws UnsatisfiedLinkError when no library can be had; the message says why and what to do
     */
    public static synchronized Path path() {
        if (resolved == null) {
            String explicit = System.getProperty(PATH_PROPERTY);
            resolved = explicit != null ? Path.of(explicit) : unpackCarried(platform(System.getProperty("os.name"), System.getProperty("os.arch")));
        }
        return resolved;
    }

    /** The platform folder for an {@code os.name} and {@code os.arch}, e.g. {@code linux-x86_64}. */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT).startsWith("linux") ? "linux" : osName.toLowerCase(Locale.ROOT).replace(' ', '-');
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64", "x86-64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> osArch.toLowerCase(Locale.ROOT);
        };
        return os + "-" + arch;
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
        if (sha256 == null) {
            throw new UnsatisfiedLinkError("bufkit has no native library for platform " + platform + " in this jar (it carries: "
                    + index.getProperty("platforms", "none") + "); build one with bindings/java/build.sh and set -D"
                    + PATH_PROPERTY + "=/path/to/" + FILE_NAME);
        }
        byte[] carried;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + platform + "/" + FILE_NAME)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("the jar's index lists " + platform + " but " + RESOURCES + platform + "/" + FILE_NAME + " is missing");
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
                return unpack(root, version, platform, carried, sha256);
            } catch (IOException e) {
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
        if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()) {
            roots.add(Path.of(xdg, "bufkit"));
        } else {
            roots.add(Path.of(System.getProperty("user.home"), ".cache", "bufkit"));
        }
        roots.add(Path.of(System.getProperty("java.io.tmpdir"), "bufkit-" + System.getProperty("user.name")));
        return roots;
    }

    /**
     * Puts {@code bytes} at {@code root/version/platform-sha/FILE_NAME} unless an intact copy is
     * there, and returns its path once verified.
     *
     * @throws UnsatisfiedLinkError when a copy is there but is not intact, or is not safely owned
     * @throws IOException when the cache cannot be written
     */
    static Path unpack(Path root, String version, String platform, byte[] bytes, String sha256) throws IOException {
        Path dir = root.resolve(version).resolve(platform + "-" + sha256.substring(0, 16));
        Path file = dir.resolve(FILE_NAME);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            for (Path d : List.of(root, root.resolve(version), dir)) {
                privateDirectory(d);
            }
            Path temporary = Files.createTempFile(dir, "." + FILE_NAME + ".", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
            try {
                try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                    ByteBuffer data = ByteBuffer.wrap(bytes);
                    while (data.hasRemaining()) {
                        out.write(data);
                    }
                    out.force(true);
                }
                // rename(2): a concurrent process that got there first had the same bytes.
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
        verify(root, dir, file, platform, sha256);
        return file;
    }

    /**
     * Checks that {@code file} is safe to load: a regular file whose checksum matches, owned by this
     * user and writable by nobody else, in directories that are the same up to {@code root}.
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
        if (Files.isSymbolicLink(p)) {
            throw new UnsatisfiedLinkError("refusing to load bufkit's native library for " + platform + ": the cache " + what + " " + p + " is a symbolic link");
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
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        } catch (FileAlreadyExistsException e) {
            // checked by verify() with the rest of the chain
        }
    }

    private static int currentUid() throws IOException {
        // /proc/self belongs to the process's effective uid.
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
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
