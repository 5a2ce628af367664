//! Safe, parallel, all-or-nothing zip/APK extraction: not implemented yet (issue 5).
