package dev.bufkit.wine;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.Provider;
import java.security.SecureRandomSpi;

/**
 * A SecureRandom for the tests run on a Windows JDK under wine, first in the provider list there
 * (bindings/java/run-tests.sh): the JDK's own seeding enumerates network interfaces, which calls
 * iphlpapi's GetAnycastIpAddressTable, absent from wine 8.0, and the JVM dies. Bytes come from the
 * host's /dev/urandom, which wine shows on drive Z:. Never part of the jar.
 */
public final class WineEntropy extends Provider {
    private static final long serialVersionUID = 1L;

    /** The provider, with its one SecureRandom. */
    public WineEntropy() {
        super("WineEntropy", "1", "SecureRandom from the host's /dev/urandom, for tests under wine");
        putService(new Service(this, "SecureRandom", "WineUrandom", Urandom.class.getName(), null, null));
    }

    /** Reads the host's /dev/urandom. */
    public static final class Urandom extends SecureRandomSpi {
        private static final long serialVersionUID = 1L;

        @Override
        protected void engineSetSeed(byte[] seed) {
            // the host's generator needs no seed
        }

        @Override
        protected void engineNextBytes(byte[] bytes) {
            try (InputStream in = new FileInputStream("Z:\\dev\\urandom")) {
                int at = 0;
                while (at < bytes.length) {
                    int n = in.read(bytes, at, bytes.length - at);
                    if (n < 0) {
                        throw new IOException("Z:\\dev\\urandom ended");
                    }
                    at += n;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        protected byte[] engineGenerateSeed(int length) {
            byte[] seed = new byte[length];
            engineNextBytes(seed);
            return seed;
        }
    }
}
