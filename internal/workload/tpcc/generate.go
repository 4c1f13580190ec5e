package tpcc

// The initial population of clause 4.3.3.1, one generator per table. The load
// is cut into units (a table for one warehouse, or item, or all warehouse and
// district rows); each unit draws from its own Rand seeded from (seed, table,
// warehouse), so the data depends only on --seed, never on how many workers
// ran or in which order.

// Fixed cardinalities of clause 4.3.3.1.
const (
	Items                = 100_000
	DistrictsPerWH       = 10
	CustomersPerDistrict = 3_000
	OrdersPerDistrict    = 3_000
	// Orders 2,101..3,000 of each district are undelivered: they have a
	// new_order row, no carrier and null delivery dates.
	FirstUndelivered     = 2_101
	NewOrdersPerDistrict = OrdersPerDistrict - FirstUndelivered + 1
)

// population holds what every generator of one load shares.
type population struct {
	seed       uint64
	warehouses int
	c          Constants      // C_LOAD
	now        timestampField // c_since, h_date, o_entry_d, ol_delivery_d of the load
}

// unitKind numbers the generators for seeding; never reorder (it would change
// the data a given --seed produces).
type unitKind uint64

const (
	unitItem unitKind = iota + 1
	unitWarehouse
	unitDistrict
	unitStock
	unitCustomer
	unitHistory
	unitOrders
	unitNewOrder
	unitOrderLine
	unitOrderShape // o_ol_cnt, shared by orders and order_line
)

// mix64 is splitmix64's finalizer: it spreads related inputs over unrelated seeds.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unitRand returns the generator of one unit (kind, warehouse, district).
func (p *population) unitRand(kind unitKind, w, d int) *Rand {
	return NewRand(mix64(mix64(mix64(p.seed^uint64(kind)<<56)+uint64(w)) + uint64(d)))
}

// rowSource produces the rows of one unit into a copyRows.
type rowSource interface {
	table() string
	warehouse() int       // the warehouse whose rows these are; 0 for item, warehouse, district
	total() int           // rows this unit writes
	writeRow(c *copyRows) // writes the next row
}

// appendLetters appends n random letters (w_state: "a-string of 2 letters").
func (g *Rand) appendLetters(dst []byte, n int) []byte {
	return g.appendFrom(dst, n, alnum[10:])
}

// address writes street_1, street_2, city, state, zip (clause 4.3.3.1).
func (g *Rand) address(c *copyRows) {
	for range 3 {
		m := c.beginText()
		c.b = g.AppendAString(c.b, 10, 20)
		c.endText(m)
	}
	m := c.beginText()
	c.b = g.appendLetters(c.b, 2)
	c.endText(m)
	m = c.beginText()
	c.b = g.AppendZip(c.b)
	c.endText(m)
}

// aString writes an a-string column of random length [lo..hi].
func (g *Rand) aString(c *copyRows, lo, hi int) {
	m := c.beginText()
	c.b = g.AppendAString(c.b, lo, hi)
	c.endText(m)
}

// itemRows: 100,000 items, i_im_id [1..10,000], i_name a[14..24],
// i_price [1.00..100.00], i_data a[26..50] with 10% "ORIGINAL".
type itemRows struct {
	g *Rand
	i int
}

func (p *population) items() *itemRows { return &itemRows{g: p.unitRand(unitItem, 0, 0)} }

func (s *itemRows) table() string  { return "item" }
func (s *itemRows) warehouse() int { return 0 }
func (s *itemRows) total() int     { return Items }
func (s *itemRows) writeRow(c *copyRows) {
	s.i++
	g := s.g
	c.row(5)
	c.int4(s.i)
	c.int4(g.IntRange(1, 10_000))
	g.aString(c, 14, 24)
	c.numeric(int64(g.IntRange(100, 10_000)), 2)
	m := c.beginText()
	c.b = g.AppendOriginal(c.b, 26, 50)
	c.endText(m)
	c.end()
}

// warehouseRows: one row per warehouse, w_tax [0.0000..0.2000], w_ytd 300,000.00.
type warehouseRows struct {
	p *population
	g *Rand
	w int
}

func (p *population) warehouseRows() *warehouseRows {
	return &warehouseRows{p: p, g: p.unitRand(unitWarehouse, 0, 0)}
}

func (s *warehouseRows) table() string  { return "warehouse" }
func (s *warehouseRows) warehouse() int { return 0 }
func (s *warehouseRows) total() int     { return s.p.warehouses }
func (s *warehouseRows) writeRow(c *copyRows) {
	s.w++
	g := s.g
	c.row(9)
	c.int4(s.w)
	g.aString(c, 6, 10)
	g.address(c)
	c.numeric(int64(g.IntRange(0, 2000)), 4)
	c.numeric(300_000_00, 2)
	c.end()
}

// districtRows: ten per warehouse, d_tax [0.0000..0.2000], d_ytd 30,000.00,
// d_next_o_id 3,001.
type districtRows struct {
	p *population
	g *Rand
	n int
}

func (p *population) districtRows() *districtRows {
	return &districtRows{p: p, g: p.unitRand(unitDistrict, 0, 0)}
}

func (s *districtRows) table() string  { return "district" }
func (s *districtRows) warehouse() int { return 0 }
func (s *districtRows) total() int     { return s.p.warehouses * DistrictsPerWH }
func (s *districtRows) writeRow(c *copyRows) {
	w, d := s.n/DistrictsPerWH+1, s.n%DistrictsPerWH+1
	s.n++
	g := s.g
	c.row(11)
	c.int4(d)
	c.int4(w)
	g.aString(c, 6, 10)
	g.address(c)
	c.numeric(int64(g.IntRange(0, 2000)), 4)
	c.numeric(30_000_00, 2)
	c.int4(OrdersPerDistrict + 1)
	c.end()
}

// stockRows: 100,000 per warehouse, s_quantity [10..100], s_dist_xx a-string of
// 24, counters 0, s_data a[26..50] with 10% "ORIGINAL".
type stockRows struct {
	g    *Rand
	w, i int
}

func (p *population) stockRows(w int) *stockRows {
	return &stockRows{g: p.unitRand(unitStock, w, 0), w: w}
}

func (s *stockRows) table() string  { return "stock" }
func (s *stockRows) warehouse() int { return s.w }
func (s *stockRows) total() int     { return Items }
func (s *stockRows) writeRow(c *copyRows) {
	s.i++
	g := s.g
	c.row(17)
	c.int4(s.i)
	c.int4(s.w)
	c.int4(g.IntRange(10, 100))
	for range 10 {
		m := c.beginText()
		c.b = g.appendFrom(c.b, 24, alnum)
		c.endText(m)
	}
	c.int4(0)
	c.int4(0)
	c.int4(0)
	m := c.beginText()
	c.b = g.AppendOriginal(c.b, 26, 50)
	c.endText(m)
	c.end()
}

// customerRows: 3,000 per district; see clause 4.3.3.1 and TPCC.md.
type customerRows struct {
	p    *population
	g    *Rand
	w, n int
}

func (p *population) customerRows(w int) *customerRows {
	return &customerRows{p: p, g: p.unitRand(unitCustomer, w, 0), w: w}
}

func (s *customerRows) table() string  { return "customer" }
func (s *customerRows) warehouse() int { return s.w }
func (s *customerRows) total() int     { return DistrictsPerWH * CustomersPerDistrict }
func (s *customerRows) writeRow(c *copyRows) {
	d, id := s.n/CustomersPerDistrict+1, s.n%CustomersPerDistrict+1
	s.n++
	g := s.g
	c.row(21)
	c.int4(id)
	c.int4(d)
	c.int4(s.w)
	g.aString(c, 8, 16)
	c.text("OE")
	// c_last: the first 1,000 customers take every name once, the rest NURand (4.3.3.1).
	num := id - 1
	if id > 1000 {
		num = g.NURand(NURandCLast, 0, 999, s.p.c.CLast)
	}
	m := c.beginText()
	c.b = AppendLastName(c.b, num)
	c.endText(m)
	g.address(c)
	m = c.beginText()
	c.b = g.appendFrom(c.b, 16, alnum[:10])
	c.endText(m)
	c.timestamp(s.p.now)
	if g.Percent(10) {
		c.text("BC")
	} else {
		c.text("GC")
	}
	c.numeric(50_000_00, 2)
	c.numeric(int64(g.IntRange(0, 5000)), 4)
	c.numeric(-10_00, 2)
	c.numeric(10_00, 2)
	c.int4(1)
	c.int4(0)
	g.aString(c, 300, 500)
	c.end()
}

// historyRows: one per customer, h_amount 10.00, h_data a[12..24].
type historyRows struct {
	p    *population
	g    *Rand
	w, n int
}

func (p *population) historyRows(w int) *historyRows {
	return &historyRows{p: p, g: p.unitRand(unitHistory, w, 0), w: w}
}

func (s *historyRows) table() string  { return "history" }
func (s *historyRows) warehouse() int { return s.w }
func (s *historyRows) total() int     { return DistrictsPerWH * CustomersPerDistrict }
func (s *historyRows) writeRow(c *copyRows) {
	d, id := s.n/CustomersPerDistrict+1, s.n%CustomersPerDistrict+1
	s.n++
	c.row(8)
	c.int4(id)
	c.int4(d)
	c.int4(s.w)
	c.int4(d)
	c.int4(s.w)
	c.timestamp(s.p.now)
	c.numeric(10_00, 2)
	s.g.aString(c, 12, 24)
	c.end()
}

// orderShape returns o_ol_cnt, random [5..15], of the 3,000 orders of one
// district. orders and order_line both derive it from the same seed.
func (p *population) orderShape(w, d int, cnt *[OrdersPerDistrict]uint8) {
	g := p.unitRand(unitOrderShape, w, d)
	for i := range cnt {
		cnt[i] = uint8(g.IntRange(5, 15))
	}
}

// orderRows: 3,000 per district, o_c_id a permutation of 1..3,000,
// o_carrier_id [1..10] below 2,101 else null, o_all_local 1.
type orderRows struct {
	p    *population
	g    *Rand
	w, n int
	// perm and cnt are one district's, allocated while the unit streams
	// and dropped after its last row: a load holds every warehouse's units
	// from the start, so what they keep must not grow with the scale.
	perm []int
	cnt  *[OrdersPerDistrict]uint8
}

func (p *population) orderRows(w int) *orderRows {
	return &orderRows{p: p, g: p.unitRand(unitOrders, w, 0), w: w}
}

func (s *orderRows) table() string  { return "orders" }
func (s *orderRows) warehouse() int { return s.w }
func (s *orderRows) total() int     { return DistrictsPerWH * OrdersPerDistrict }
func (s *orderRows) writeRow(c *copyRows) {
	d, id := s.n/OrdersPerDistrict+1, s.n%OrdersPerDistrict+1
	s.n++
	if id == 1 {
		if s.cnt == nil {
			s.cnt = new([OrdersPerDistrict]uint8)
		}
		s.perm = s.g.Perm(CustomersPerDistrict)
		s.p.orderShape(s.w, d, s.cnt)
	}
	c.row(8)
	c.int4(id)
	c.int4(d)
	c.int4(s.w)
	c.int4(s.perm[id-1])
	c.timestamp(s.p.now)
	if id < FirstUndelivered {
		c.int4(s.g.IntRange(1, 10))
	} else {
		c.null()
	}
	c.int4(int(s.cnt[id-1]))
	c.int4(1)
	c.end()
	if s.n == s.total() {
		s.perm, s.cnt = nil, nil
	}
}

// newOrderRows: orders 2,101..3,000 of each district.
type newOrderRows struct {
	w, n int
}

func (p *population) newOrderRows(w int) *newOrderRows { return &newOrderRows{w: w} }

func (s *newOrderRows) table() string  { return "new_order" }
func (s *newOrderRows) warehouse() int { return s.w }
func (s *newOrderRows) total() int     { return DistrictsPerWH * NewOrdersPerDistrict }
func (s *newOrderRows) writeRow(c *copyRows) {
	d, id := s.n/NewOrdersPerDistrict+1, s.n%NewOrdersPerDistrict+FirstUndelivered
	s.n++
	c.row(3)
	c.int4(id)
	c.int4(d)
	c.int4(s.w)
	c.end()
}

// orderLineRows: o_ol_cnt lines per order; ol_i_id [1..100,000], supply
// warehouse = home, quantity 5; delivered orders (o_id < 2,101) have
// ol_delivery_d = o_entry_d and amount 0.00, the others null and
// [0.01..9,999.99]; ol_dist_info a-string of 24.
type orderLineRows struct {
	p          *population
	g          *Rand
	w, d, o, l int                       // current district, order and line (1-based; o == 0 before the first)
	cnt        *[OrdersPerDistrict]uint8 // the district's o_ol_cnt while the unit streams (as orderRows')
	rows, done int
}

func (p *population) orderLineRows(w int) *orderLineRows {
	s := &orderLineRows{p: p, g: p.unitRand(unitOrderLine, w, 0), w: w}
	// The row count is known only from the shapes; sum them up front.
	var cnt [OrdersPerDistrict]uint8
	for d := 1; d <= DistrictsPerWH; d++ {
		p.orderShape(w, d, &cnt)
		for _, n := range cnt {
			s.rows += int(n)
		}
	}
	return s
}

func (s *orderLineRows) table() string  { return "order_line" }
func (s *orderLineRows) warehouse() int { return s.w }
func (s *orderLineRows) total() int     { return s.rows }
func (s *orderLineRows) writeRow(c *copyRows) {
	if s.o == 0 || s.l == int(s.cnt[s.o-1]) {
		s.l = 0
		s.o++
		if s.o > OrdersPerDistrict || s.d == 0 {
			s.d++
			s.o = 1
			if s.cnt == nil {
				s.cnt = new([OrdersPerDistrict]uint8)
			}
			s.p.orderShape(s.w, s.d, s.cnt)
		}
	}
	s.l++
	g := s.g
	c.row(10)
	c.int4(s.o)
	c.int4(s.d)
	c.int4(s.w)
	c.int4(s.l)
	c.int4(g.IntRange(1, Items))
	c.int4(s.w)
	delivered := s.o < FirstUndelivered
	if delivered {
		c.timestamp(s.p.now)
	} else {
		c.null()
	}
	c.int4(5)
	if delivered {
		c.numeric(0, 2)
	} else {
		c.numeric(int64(g.IntRange(1, 999_999)), 2)
	}
	m := c.beginText()
	c.b = g.appendFrom(c.b, 24, alnum)
	c.endText(m)
	c.end()
	if s.done++; s.done == s.rows {
		s.cnt = nil
	}
}
