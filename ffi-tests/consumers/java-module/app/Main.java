package app;

import dev.bufkit.Bufkit;
import dev.bufkit.BufferConfig;
import dev.bufkit.GrowableBuffer;
import java.nio.charset.StandardCharsets;

/** Loads bufkit as a module and uses it: prints the front and the bytes a buffer kept. Usage: app.Main FRONT */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Bufkit bufkit = Bufkit.load();
        if (!bufkit.front().equals(args[0])) {
            throw new IllegalStateException("expected the " + args[0] + " front, got " + bufkit.front());
        }
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            buf.append("from a module".getBytes(StandardCharsets.UTF_8));
            System.out.println(bufkit.front() + " front in module " + Bufkit.class.getModule().getName() + ": "
                    + new String(buf.toByteArray(), StandardCharsets.UTF_8));
        }
    }
}
