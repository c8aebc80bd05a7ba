// The program behind calls.tarmac (hand-written trace of it): a caller,
// a function called twice that calls a leaf. Built by the browse test
// with aarch64-linux-gnu-gcc -nostdlib -static -Wl,-Ttext=0x1000 for symbols.
	.text
	.global _start
	.type	_start, %function
_start:
	mov	x1, #0x10000
	bl	func
	str	x0, [x1, #8]
	bl	func
	hlt	#0
	.size	_start, . - _start
	.type	func, %function
func:
	add	x0, x0, #1
	str	x0, [x1]
	mov	x9, x30
	bl	inner
	mov	x30, x9
	ret
	.size	func, . - func
	.type	inner, %function
inner:
	add	x2, x0, #0x10
	ret
	.size	inner, . - inner
