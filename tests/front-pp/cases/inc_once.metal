#include "inc/once.h"
#include "inc/once.h"
#include "inc/guard.h"
#include "inc/guard.h"
end
