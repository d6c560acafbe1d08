/* bochscpu-python's wheel was linked against glibc 2.38, which renamed strtoull and sscanf
   (C23). On an older glibc, LD_PRELOAD this to give it the old ones. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }

int __isoc23_sscanf(const char *s, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	int n = vsscanf(s, format, ap);
	va_end(ap);
	return n;
}
