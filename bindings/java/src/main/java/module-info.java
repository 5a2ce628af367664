/**
 * bufkit for Java: growable buffers, buffer pools, inflation at offsets and zip/APK archives over
 * bufkit's one C ABI. The API is the {@code dev.bufkit} package; the JNI front (Java 17+) and the
 * Panama front (Java 22+, in the jar's {@code META-INF/versions/22}) are its implementations, found
 * by {@link dev.bufkit.Bufkit#load()}. They are package-private classes of {@code dev.bufkit}: the
 * calls each front makes into the C ABI are not part of the API, and its types cannot be extended.
 *
 * <p>On the module path the Panama front needs {@code --enable-native-access=dev.bufkit} (on the
 * class path, the jar's manifest grants it to {@code ALL-UNNAMED}).
 */
module dev.bufkit {
    exports dev.bufkit;
}
