#ifndef GUARD_H
#define GUARD_H
guard_token
#endif
