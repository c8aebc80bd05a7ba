#!/usr/bin/env python3
"""The call structure of examples/sort.c, computed from its source: the same
xorshift generator and the same quick_sort (recursing into the smaller half,
looping on the larger, insertion sort below 17 elements). Prints the number
of quick_sort activations and the deepest nesting for N numbers.
usage: calls-sort-oracle.py N"""
import sys
n=int(sys.argv[1])
state=88172645463325252
M=(1<<64)-1
def rng():
    global state
    state^=(state<<13)&M; state^=state>>7; state^=(state<<17)&M
    return state & 0xffffffff
a=[rng()%1000000 for _ in range(n)]
calls=0; maxd=0
def qs(lo,hi,d):
    global calls,maxd
    calls+=1; maxd=max(maxd,d)
    while hi-lo>16:
        pivot=a[lo+(hi-lo)//2]; i,j=lo,hi
        while i<=j:
            while a[i]<pivot: i+=1
            while a[j]>pivot: j-=1
            if i<=j:
                a[i],a[j]=a[j],a[i]; i+=1; j-=1
        if j-lo<hi-i:
            qs(lo,j,d+1); lo=i
        else:
            qs(i,hi,d+1); hi=j
    # insertion sort
    for k in range(lo+1,hi+1):
        v=a[k]; m=k-1
        while m>=lo and a[m]>v:
            a[m+1]=a[m]; m-=1
        a[m+1]=v
qs(0,n-1,1)
assert a==sorted(a)
print(calls,maxd)
