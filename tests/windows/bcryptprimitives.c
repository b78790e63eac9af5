/* Wine 8 has no bcryptprimitives.dll. Windows binaries built with Rust (the newest `cryptography` wheel) call
 * its ProcessPrng for random bytes; this stand-in answers from RtlGenRandom (advapi32's SystemFunction036),
 * which Wine has. Built by tests/windows/setup.sh with Debian's gcc-mingw-w64-x86-64; used only under Wine. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
