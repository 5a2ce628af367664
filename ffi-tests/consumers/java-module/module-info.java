/** A consumer on the module path: bufkit's jar is the named module dev.bufkit. */
module app {
    requires dev.bufkit;
}
