/* A stand-in for Windows' bcryptprimitives.dll, which wine 8.0 lacks: Rust's standard library
   imports ProcessPrng from it, so without it every Rust program fails to start under wine
   (c0000135). Fills the buffer from RtlGenRandom, as the real one fills it from the system's
   generator. Built and placed in the wine prefix by scripts/test-windows; never shipped. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
