void host() {
	int x = ((((((((((1))))))))));
	x <<= 2;
}
/* unterminated