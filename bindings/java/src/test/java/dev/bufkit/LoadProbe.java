package dev.bufkit;

/** Loads bufkit and prints what happened: exit 0 loaded, 3 refused with an IllegalStateException. */
public final class LoadProbe {
    private LoadProbe() {}

    public static void main(String[] args) {
        try {
            System.out.println("loaded " + Bufkit.load().front());
        } catch (IllegalStateException e) {
            System.out.println(e.getMessage());
            System.exit(3);
        }
    }
}
