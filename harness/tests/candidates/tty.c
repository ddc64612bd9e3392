// A rogue candidate: reaches for the grader's terminal. It opens /dev/tty,
// types a line into it (TIOCSTI, on /dev/tty and on fds 0-2) and takes its
// foreground (tcsetpgrp), then prints what worked.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void) {
    const char *line = "echo PWNED\n";
    int tty = open("/dev/tty", O_RDWR);
    const char *why = tty >= 0 ? "open" : strerror(errno);
    int typed = 0;
    int fds[] = {tty, 0, 1, 2};
    for (int i = 0; i < 4; i++) {
        if (fds[i] < 0) continue;
        int ok = 1;
        for (const char *c = line; *c; c++)
            if (ioctl(fds[i], TIOCSTI, c) != 0) { ok = 0; break; }
        typed += ok;
    }
    int fg = tty >= 0 && tcsetpgrp(tty, getpgrp()) == 0;
    printf("tty %s, typed %d, foreground %d\n", why, typed, fg);
    return 1;
}
