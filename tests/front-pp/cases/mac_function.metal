#define F(x, y) x - y
#define G() g
#define ID(x) x
F((a, b), c) G() G ID() ID(ID(z))
F(
 1,
 2)
