package flexarray_test

import (
	"fmt"

	"github.com/usctp/usctp/flexarray"
)

func Example() {
	type rec struct{ mid, midUO uint32 }
	a := flexarray.New[rec](65535) // no page allocated yet
	fmt.Println(a.Len(), a.Bytes(), a.Get(7) == nil)

	r := a.Ensure(7) // materialises the page holding element 7
	r.mid = 42
	a.Resize(1 << 20) // growing never moves an element
	fmt.Println(a.Get(7) == r, a.Get(7).mid, a.PerPage())

	for i, e := range a.All() {
		if e.mid != 0 {
			fmt.Println(i, e.mid)
		}
	}
	// Output:
	// 65535 0 true
	// true 42 512
	// 7 42
}
