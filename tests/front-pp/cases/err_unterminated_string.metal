x = "abc;
y = 'q;
z = "ok";
